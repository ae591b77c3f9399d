import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

// The library: ESM + CJS, typed. `evals grade` runs from the `evals` binary of @evals/harness.
export default defineConfig(packageBuilds([packageBuild()]));
