import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared";

// The library (ESM + CJS) and the `evals` CLI (its bin is dist/cli.js, ESM).
export default defineConfig(packageBuild({ entry: ["src/index.ts", "src/cli.ts"] }));
