#!/usr/bin/env node
// Fails (exit 1) when a workspace package has an import cycle, printing each cycle as dpdm finds it.
// dpdm parses with the TypeScript compiler, so `import type` edges count (a type-level cycle ties
// modules together as much as a runtime one), and `./x.js` resolves to `./x.ts`. Workspace packages
// are resolved to their sources (`@evals/core` -> packages/core/src/index.ts, a subpath
// `@evals/core/process` -> packages/core/src/process), so a cycle through another package shows too.
//
//   node check-cycles.mjs [--root <workspace folder>]   (default: this repository)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { root: { type: "string" } } });
const root = resolve(values.root ?? join(import.meta.dirname, "..", ".."));

/** The folders of the root package.json's workspaces ("packages/*" or a folder). */
function workspaceFolders(workspaceRoot) {
  const { workspaces = [] } = JSON.parse(readFileSync(join(workspaceRoot, "package.json"), "utf8"));
  return workspaces.flatMap((pattern) => {
    if (!pattern.endsWith("/*")) return [join(workspaceRoot, pattern)];
    const parent = join(workspaceRoot, pattern.slice(0, -2));
    if (!existsSync(parent)) return [];
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name));
  });
}

const packages = workspaceFolders(root)
  .filter((folder) => existsSync(join(folder, "package.json")) && existsSync(join(folder, "src")))
  .map((folder) => ({ folder, name: JSON.parse(readFileSync(join(folder, "package.json"), "utf8")).name }));

if (packages.length === 0) {
  console.error(`check-cycles: no workspace package with a src/ folder under ${root}`);
  process.exit(2);
}

// A tsconfig whose paths send each workspace package's name to its sources.
const paths = Object.fromEntries(
  packages
    .filter((pkg) => typeof pkg.name === "string")
    .flatMap((pkg) => [
      [pkg.name, [join(pkg.folder, "src", "index.ts")]],
      [`${pkg.name}/*`, [join(pkg.folder, "src", "*")]],
    ]),
);
const scratch = mkdtempSync(join(tmpdir(), "check-cycles-"));
const tsconfig = join(scratch, "tsconfig.json");
writeFileSync(tsconfig, JSON.stringify({ compilerOptions: { baseUrl: root, paths } }));

const dpdm = join(
  dirname(createRequire(import.meta.url).resolve("dpdm/package.json")),
  "lib",
  "bin",
  "dpdm.js",
);
const globs = packages.map((pkg) => `${relative(root, pkg.folder)}/src/**/*.{ts,tsx,mts,cts,js,mjs}`);
const result = spawnSync(
  process.execPath,
  [
    dpdm,
    "--no-tree",
    "--no-warning",
    "--no-progress",
    "--exit-code",
    "circular:1",
    "--tsconfig",
    tsconfig,
    "--exclude",
    "node_modules|/dist/|\\.d\\.ts$",
    ...globs,
  ],
  { cwd: root, encoding: "utf8" },
);
rmSync(scratch, { recursive: true, force: true });

process.stdout.write(result.stdout ?? "");
process.stderr.write(result.stderr ?? "");
if (result.status === 0) {
  console.log(`check-cycles: no import cycle in ${packages.length} workspace packages`);
  process.exit(0);
}
if (result.status === 1) {
  console.error(
    "check-cycles: import cycles found (listed above, type-only imports included): move what both sides need into a module of its own",
  );
  process.exit(1);
}
console.error(`check-cycles: dpdm failed (exit ${result.status ?? result.signal})`);
process.exit(3);
