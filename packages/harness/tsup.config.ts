import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

export default defineConfig(
  packageBuilds([
    // The library: ESM only (it imports execa), typed.
    packageBuild({ esmOnly: true, clean: ["!cli.js*"] }),
    // The `evals` binary (package.json "bin": dist/cli.js).
    {
      ...packageBuild({ entry: { cli: "src/cli/main.ts" }, esmOnly: true, dts: false }),
      clean: false,
    },
  ]),
);
