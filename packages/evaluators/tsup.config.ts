import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

export default defineConfig(
  packageBuilds([
    // The library: ESM + CJS, typed.
    packageBuild({ clean: ["!cli.js*"] }),
    // The `evals` CLI (its bin is dist/cli.js): ESM only. A CommonJS twin would be a shipped entry point
    // that crashes (it reads its version through import.meta.url, which CJS does not have).
    {
      ...packageBuild({ entry: ["src/cli.ts"], esmOnly: true, dts: false }),
      clean: false,
    },
  ]),
);
