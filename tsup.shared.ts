import type { Options } from "tsup";

/**
 * The one tsup setup every publishable package uses: ESM + CJS + .d.ts from src/index.ts.
 * Packages that import execa (ESM only) pass `esmOnly: true`.
 */
export function packageBuild(
  options: { entry?: Options["entry"]; esmOnly?: boolean } & Partial<Options> = {},
) {
  const { esmOnly, entry, ...rest } = options;
  return {
    entry: entry ?? ["src/index.ts"],
    format: esmOnly ? ["esm"] : ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node20",
    platform: "node",
    splitting: false,
    shims: false,
    ...rest,
  } satisfies Options;
}
