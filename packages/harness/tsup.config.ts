import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

export default defineConfig(
  packageBuilds([
    // The library: ESM only (it imports execa), typed; `@evals/harness/vitest` its own entry, so the root
    // loads no vitest (`splitting` keeps the modules both use in one shared chunk).
    packageBuild({
      entry: { index: "src/index.ts", vitest: "src/vitest.ts" },
      esmOnly: true,
      splitting: true,
      clean: ["!cli.js*"],
    }),
    // The `evals` binary (package.json "bin": dist/cli.js).
    {
      ...packageBuild({ entry: { cli: "src/cli/main.ts" }, esmOnly: true, dts: false }),
      clean: false,
    },
  ]),
);
