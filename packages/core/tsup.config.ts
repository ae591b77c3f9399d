import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

// Two entries, the root and `@evals/core/process`: `splitting` puts what both use in one shared chunk,
// so module state (exit clean-ups, the one watchdog per process) exists once. `shims` gives the CommonJS
// build an import.meta.url (the watchdog finds its script by it); without it esbuild empties import.meta
// there and warns.
export default defineConfig(
  packageBuilds([
    packageBuild({
      entry: { index: "src/index.ts", process: "src/process.ts" },
      shims: true,
      splitting: true,
    }),
  ]),
);
