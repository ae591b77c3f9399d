import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { publishablePackages, userEnv } from "./packed.js";

/**
 * Every entry point a package publishes must work from its built dist: each bin answers `--help` and
 * `--version` without crashing, and no JavaScript file ships in dist that package.json does not point
 * at (an unreferenced CommonJS twin of a CLI once crashed on `--version`).
 */

interface Manifest {
  name: string;
  version: string;
  bin?: string | Record<string, string>;
  main?: string;
  module?: string;
  exports?: unknown;
}

const packages = publishablePackages().map((pkg) => ({
  ...pkg,
  manifest: JSON.parse(readFileSync(join(pkg.dir, "package.json"), "utf8")) as Manifest,
}));

const binsOf = (manifest: Manifest): [string, string][] =>
  typeof manifest.bin === "string"
    ? [[manifest.name.split("/").pop() ?? manifest.name, manifest.bin]]
    : Object.entries(manifest.bin ?? {});

const bins = packages.flatMap((pkg) =>
  binsOf(pkg.manifest).map(([name, file]) => ({ pkg, name, file: join(pkg.dir, file) })),
);

/** Every path string in `exports` (all conditions), `main`, `module` and `bin`. */
function entryPoints(manifest: Manifest): Set<string> {
  const paths = new Set<string>();
  const walk = (value: unknown) => {
    if (typeof value === "string") paths.add(normalize(value));
    else if (value && typeof value === "object") for (const inner of Object.values(value)) walk(inner);
  };
  walk(manifest.exports);
  walk(manifest.main);
  walk(manifest.module);
  for (const [, file] of binsOf(manifest)) walk(file);
  return paths;
}

const run = (file: string, flag: string) =>
  spawnSync(process.execPath, [file, flag], {
    encoding: "utf8",
    input: "",
    timeout: 60_000,
    // A user's shell: the hook bin in particular captures nothing outside an eval run (TEST_MODE).
    env: userEnv(),
  });

describe("published bins", () => {
  it("are the ones the packages declare", () => {
    expect(bins.map(({ pkg, name }) => `${pkg.name} ${name}`).sort()).toEqual([
      "@evals/cli evals",
      "@evals/hooks evals-hook",
    ]);
  });

  it("have one package per name (two packages with one bin would fight over node_modules/.bin)", () => {
    const names = bins.map((bin) => bin.name);
    expect(names).toEqual([...new Set(names)]);
  });

  it.each(bins.map((bin) => [bin.name, bin] as const))("%s --help prints its usage", (_, bin) => {
    const result = run(bin.file, "--help");
    expect(result.error).toBeUndefined();
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: "" });
    expect(result.stdout).toMatch(/^Usage/);
  });

  it.each(bins.map((bin) => [bin.name, bin] as const))(
    "%s --version does not crash, and any version it prints is its package's",
    (_, bin) => {
      const result = run(bin.file, "--version");
      expect(result.error).toBeUndefined();
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: "" });
      if (result.stdout !== "") expect(result.stdout).toBe(`${bin.pkg.version}\n`);
    },
  );

  it("the evals CLI prints its version, and lists its commands", () => {
    const evals = bins.find((bin) => bin.name === "evals");
    expect(evals && run(evals.file, "--version").stdout).toBe(`${evals?.pkg.version}\n`);
    expect(evals && run(evals.file, "--help").stdout).toMatch(
      /\n {2}grade .*\n {2}validate .*\n {2}rules .*\n {2}report /,
    );
  });
});

/** Every `require` and `import` target of a manifest's `exports` (types left out), with its kind. */
function moduleEntries(manifest: Manifest): { file: string; kind: "require" | "import" }[] {
  const entries: { file: string; kind: "require" | "import" }[] = [];
  const walk = (value: unknown, kind?: "require" | "import") => {
    if (typeof value === "string") {
      if (kind && /\.(c|m)?js$/.test(value)) entries.push({ file: normalize(value), kind });
    } else if (value && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        if (key === "types") continue;
        walk(inner, key === "require" || key === "import" ? key : kind);
      }
    }
  };
  walk(manifest.exports);
  return entries;
}

const moduleEntryRows = packages.flatMap((pkg) =>
  moduleEntries(pkg.manifest).map(
    (entry) => [`${pkg.name} ${entry.kind} ${entry.file}`, pkg, entry] as const,
  ),
);

describe("published module entries", () => {
  it("include a CommonJS and an ESM entry of @evals/core", () => {
    expect(moduleEntryRows.map(([label]) => label)).toEqual(
      expect.arrayContaining(["@evals/core require dist/index.cjs", "@evals/core import dist/index.js"]),
    );
  });

  it.each(moduleEntryRows)("%s loads in a plain node process", (_, pkg, entry) => {
    const file = join(pkg.dir, entry.file);
    const code =
      entry.kind === "require"
        ? `require(${JSON.stringify(file)})`
        : `import(${JSON.stringify(pathToFileURL(file).href)}).catch((error) => { console.error(error); process.exit(1); })`;
    const result = spawnSync(process.execPath, ["-e", code], {
      encoding: "utf8",
      input: "",
      timeout: 60_000,
      env: userEnv(),
    });
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: "" });
  });

  it("CommonJS builds never lose import.meta (esbuild's empty stand-in, which its CJS build warns about)", () => {
    // esbuild turns import.meta into `{}` in a CommonJS build and warns "import.meta is not available
    // with the cjs output format": import.meta.url is then undefined at run time.
    const emptied = moduleEntryRows
      .filter(([, , entry]) => entry.file.endsWith(".cjs"))
      .filter(([, pkg, entry]) =>
        /\bimport_meta\d* = \{\}/.test(readFileSync(join(pkg.dir, entry.file), "utf8")),
      )
      .map(([label]) => label);
    expect(emptied).toEqual([]);
  });
});

describe("published JavaScript files", () => {
  it("are all entry points of their package.json (no unreferenced builds in dist)", () => {
    for (const { dir, manifest } of packages) {
      const built = readdirSync(join(dir, "dist")).filter((file) => /\.(c|m)?js$/.test(file));
      // Chunks esbuild splits out, named by their content hash: shared by several entries
      // (`chunk-<hash>`: core's process state) or imported lazily (`<module>-<hash>`: the cli's
      // commands). Each must be imported by another built file; every other file is an entry point.
      const isChunk = (file: string) => /-[A-Z0-9]{8}\.(c|m)?js$/.test(file);
      const unimportedChunks = built
        .filter(isChunk)
        .filter(
          (chunk) =>
            !built.some(
              (file) =>
                file !== chunk && readFileSync(join(dir, "dist", file), "utf8").includes(`./${chunk}`),
            ),
        );
      expect(unimportedChunks, `${manifest.name}: chunks no built file imports`).toEqual([]);
      const shipped = built.filter((file) => !isChunk(file)).map((file) => normalize(`dist/${file}`));
      const declared = entryPoints(manifest);
      expect(
        shipped.filter((file) => !declared.has(file)),
        manifest.name,
      ).toEqual([]);
    }
  });
});
