import { fileURLToPath } from "node:url";
import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

const hookBin = "evals-hook";

export default defineConfig(
  packageBuilds([
    // The library: settings generator and readers, a normal dual ESM/CJS entry.
    // `shims` gives the CJS build an import.meta.url, which hookBinPath() needs.
    packageBuild({ shims: true, clean: [`!${hookBin}.cjs*`] }),
    // The hook itself: one CommonJS file that needs only Node's built-ins. It starts once per tool
    // call, so it must stay tiny: the bits of @evals/core it uses are bundled from core's public
    // entry (src/index.ts; core is `sideEffects: false`, so esbuild drops every module the hook does
    // not use, zod included). A test checks that the bundle requires nothing but node: modules.
    {
      entry: { [hookBin]: "src/bin/evals-hook.ts" },
      format: ["cjs"],
      target: "node20",
      platform: "node",
      dts: false,
      sourcemap: false,
      clean: false,
      splitting: false,
      shims: true,
      noExternal: ["@evals/core"],
      esbuildOptions(options) {
        options.alias = { "@evals/core": fileURLToPath(new URL("../core/src/index.ts", import.meta.url)) };
      },
    },
  ]),
);
