import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

/** The seven scripts the skill runs, by name: each becomes dist/<name>.js. */
const scripts = ["launcher", "init", "query", "session", "memory", "status", "sync"] as const;

export default defineConfig(
  packageBuilds([
    // The scripts: one self-contained ESM file each (dependencies bundled in), run with plain `node`
    // from an installed plugin, where no node_modules exists.
    {
      entry: Object.fromEntries(scripts.map((name) => [name, `src/bin/${name}.ts`])),
      outDir: "dist",
      format: ["esm"],
      platform: "node",
      target: "node20",
      bundle: true,
      noExternal: [/.*/],
      splitting: false,
      dts: false,
      sourcemap: false,
      clean: false,
      shims: false,
      banner: { js: "#!/usr/bin/env node" },
    },
    // The library: the file formats (zod schemas) and the fake Gemini API for test suites.
    packageBuild({
      entry: { index: "src/index.ts", testing: "src/testing/index.ts" },
      outDir: "dist/lib",
      esmOnly: true,
      clean: false,
    }),
  ]),
);
