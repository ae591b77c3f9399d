import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

export default defineConfig(
  packageBuilds([
    // What the package exports (the exit codes, the bad-input errors, `evals` to call in a process): ESM only, typed.
    packageBuild({ esmOnly: true, clean: ["!cli.js*"] }),
    // The `evals` binary (package.json "bin": dist/cli.js).
    {
      ...packageBuild({ entry: { cli: "src/main.ts" }, esmOnly: true, dts: false }),
      clean: false,
    },
  ]),
);
