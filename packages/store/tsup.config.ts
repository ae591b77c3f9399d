import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

// Two entries: the library, and `@evals/store/reporter` (a default export vitest can load by name).
export default defineConfig(packageBuilds([packageBuild({ entry: ["src/index.ts", "src/reporter.ts"] })]));
