import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared";

// The library (ESM + CJS, typed) and the `evals` CLI (its bin is dist/cli.js, ESM; it needs no types).
export default defineConfig(
  packageBuild({ entry: ["src/index.ts", "src/cli.ts"], dts: { entry: "src/index.ts" } }),
);
