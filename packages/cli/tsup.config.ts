import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

// Two entries: what the package exports (the exit codes, the bad-input errors, `evals` to call in a
// process), typed, and the `evals` binary (package.json "bin": dist/cli.js). ESM only. `splitting`
// makes each command its own chunk, imported when it runs (see evals.ts): `evals history` does not
// load the agent runners.
export default defineConfig(
  packageBuilds([
    packageBuild({
      entry: { index: "src/index.ts", cli: "src/main.ts" },
      dts: { entry: { index: "src/index.ts" } },
      esmOnly: true,
      splitting: true,
    }),
  ]),
);
