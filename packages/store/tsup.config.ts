import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

// Three entries: the library, `@evals/store/reporter` (a default export vitest can load by name), and
// `@evals/store/history-reader` (evals history from the digest, without PGlite, pg or zod).
export default defineConfig(
  packageBuilds([packageBuild({ entry: ["src/index.ts", "src/reporter.ts", "src/history-reader.ts"] })]),
);
