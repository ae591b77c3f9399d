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

/** The declaration files tsup writes: the `build-dts` part's outputs, which `build-js` must not clean. */
const DECLARATIONS = "!**/*.d.{ts,cts,mts}";

/**
 * A package's tsup configs, split in the two parts Nx runs as separate targets (see nx.json):
 * - `tsup --no-dts` (`build-js`): the JavaScript only, what vitest and the eval suites load (seconds);
 *   its clean keeps the declarations, so the other part's files survive it;
 * - `tsup --dts-only` (`build-dts`): the .d.ts files only, from the configs that have them (most of a
 *   build's time: a TypeScript program per entry);
 * - plain `tsup`: both, as before.
 */
export function packageBuilds(configs: Options[]) {
  return (cli: Options): Options[] => {
    if (cli.dts === false) return configs.map(keepingDeclarations);
    if (typeof cli.dts === "object" && cli.dts.only) return configs.filter((config) => config.dts);
    return configs;
  };
}

function keepingDeclarations(config: Options): Options {
  if (!config.clean) return config;
  const patterns = Array.isArray(config.clean) ? config.clean : [];
  return { ...config, clean: [DECLARATIONS, ...patterns] };
}
