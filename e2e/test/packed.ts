import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Packing the workspace's publishable packages the way `npm publish` would, and installing the
 * tarballs into a project of a user's: the helpers of packed-install.test.ts.
 */

export const WORKSPACE = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
export const CLAUDE_BIN = join(WORKSPACE, "node_modules", ".bin", "claude");

/** The root manifest's workspace folders (`packages/*`, `e2e`, ...) that hold a package.json. */
export function workspaceFolders(): string[] {
  const { workspaces } = JSON.parse(readFileSync(join(WORKSPACE, "package.json"), "utf8")) as {
    workspaces: string[];
  };
  return workspaces.flatMap((pattern) => {
    if (!pattern.endsWith("/*")) return [pattern];
    const parent = pattern.slice(0, -2);
    return existsSync(join(WORKSPACE, parent))
      ? readdirSync(join(WORKSPACE, parent)).map((name) => `${parent}/${name}`)
      : [];
  });
}

export interface PublishablePackage {
  dir: string;
  name: string;
  version: string;
}

/** Every package under packages/ that is not private: what a release publishes. */
export function publishablePackages(): PublishablePackage[] {
  const root = join(WORKSPACE, "packages");
  return readdirSync(root)
    .map((name) => join(root, name))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({
      dir,
      name: manifest.name as string,
      version: manifest.version as string,
    }));
}

/**
 * The environment of a user's shell: none of the npm, Nx or vitest variables of the workspace run
 * (npm_config_*, NX_*, VITEST*, NODE_OPTIONS, ...) nor the evals' own switches (VCR_MODE,
 * EVAL_LLM_JUDGE, ANTHROPIC_API_KEY) leak into the commands these tests run.
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|NX_|INIT_CWD$|VITEST|TEST_|EVALS_|NODE_OPTIONS$|NODE_PATH$|FORCE_COLOR$)/i.test(key))
      continue;
    env[key] = value;
  }
  return { ...env, FORCE_COLOR: "0", NO_COLOR: "1", npm_config_update_notifier: "false", ...extra };
}

export interface PackedFile {
  path: string;
  size: number;
}

export interface PackedPackage extends PublishablePackage {
  tarball: string;
  files: PackedFile[];
}

/** `npm pack` of one package into `destination`: the tarball and the files it holds. */
export function pack(pkg: PublishablePackage, destination: string): PackedPackage {
  mkdirSync(destination, { recursive: true });
  const out = execFileSync("npm", ["pack", "--pack-destination", destination, "--json", "--loglevel=error"], {
    cwd: pkg.dir,
    env: userEnv(),
    encoding: "utf8",
    timeout: 120_000,
  });
  const [packed] = JSON.parse(out) as { filename: string; files: PackedFile[] }[];
  if (!packed) throw new Error(`npm pack of ${pkg.name} printed no result: ${out}`);
  return { ...pkg, tarball: join(destination, packed.filename), files: packed.files };
}

/**
 * The registry npm is given for the `@evals` scope in a user's project: a loopback port nothing
 * listens on. Our packages come from their tarballs only; one that npm would fetch from the registry
 * instead (a sibling dependency that is not among the tarballs) fails the install, as its 404 would on
 * a user's machine when that sibling is not published.
 */
export const REFUSED_REGISTRY = "http://127.0.0.1:9/";

/** Our packages that `pkg`'s published manifest depends on (dependencies and peers), with their ranges. */
export function siblingDependencies(pkg: PackedPackage): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(pkg.dir, "package.json"), "utf8")) as Record<
    string,
    Record<string, string> | undefined
  >;
  const ranges = { ...manifest.peerDependencies, ...manifest.optionalDependencies, ...manifest.dependencies };
  return Object.fromEntries(Object.entries(ranges).filter(([name]) => name.startsWith("@evals/")));
}

/**
 * The tarballs a user installs to get `names`: those packages and, transitively, every one of ours
 * they depend on. Throws when one depends on a package of ours that is not among `packed`.
 */
export function tarballsFor(names: readonly string[], packed: readonly PackedPackage[]): PackedPackage[] {
  const byName = new Map(packed.map((pkg) => [pkg.name, pkg]));
  const wanted = new Map<string, PackedPackage>();
  const visit = (name: string, requiredBy: string) => {
    if (wanted.has(name)) return;
    const pkg = byName.get(name);
    if (!pkg) {
      throw new Error(
        `${requiredBy} depends on ${name}, which is not among the packed tarballs (${[...byName.keys()].join(", ")})`,
      );
    }
    wanted.set(name, pkg);
    for (const sibling of Object.keys(siblingDependencies(pkg))) visit(sibling, name);
  };
  for (const name of names) visit(name, "the user's project");
  return [...wanted.values()];
}

/**
 * Writes a user's package.json depending on the tarballs and an .npmrc that refuses the registry for
 * `@evals/*`, and runs `npm install` there. Throws with npm's output when it fails, unless
 * `allowFailure`.
 */
export function installTarballs(
  project: string,
  packages: PackedPackage[],
  options: { npmArgs?: string[]; allowFailure?: boolean } = {},
): CommandResult {
  mkdirSync(project, { recursive: true });
  const dependencies = Object.fromEntries(packages.map((pkg) => [pkg.name, `file:${pkg.tarball}`]));
  // Every edge to a package of ours resolves to its tarball: without this, npm sometimes asks the
  // (refused) registry for a sibling's manifest before the tarball is in its tree, and hangs retrying.
  // A sibling that was not packed has no override, so it still fails (see tarballsFor).
  const overrides = Object.fromEntries(packages.map((pkg) => [pkg.name, `$${pkg.name}`]));
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: "fresh-user-project", version: "1.0.0", private: true, dependencies, overrides }, null, 2)}\n`,
  );
  writeFileSync(join(project, ".npmrc"), `@evals:registry=${REFUSED_REGISTRY}\n`);
  const result = spawnSync(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      "--loglevel=error",
      ...(options.npmArgs ?? []),
    ],
    { cwd: project, env: userEnv(), encoding: "utf8", timeout: 540_000 },
  );
  const outcome = { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
  if (result.status !== 0 && !options.allowFailure) {
    throw new Error(
      `npm install in ${project} failed (${result.status}):\n${outcome.stdout}\n${outcome.stderr}`,
    );
  }
  return outcome;
}

/** The bytes of every file under `dir` (apparent sizes, symlinks not followed). */
export function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += folderBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command in the project; throws with its output when it fails. */
export function runIn(
  project: string,
  command: string,
  args: string[],
  options: { env?: Record<string, string>; input?: string; timeoutMs?: number; allowFailure?: boolean } = {},
): CommandResult {
  const result = spawnSync(command, args, {
    cwd: project,
    env: userEnv(options.env),
    encoding: "utf8",
    timeout: options.timeoutMs ?? 120_000,
    // Nx's graphs with every npm package in them are several MiB; the default 1 MiB would kill the child.
    maxBuffer: 256 * 1024 * 1024,
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
  const outcome = { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
  if (!options.allowFailure && result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (${result.error ? `${result.error.message}, ` : ""}${result.status ?? result.signal}):\n${outcome.stdout}\n${outcome.stderr}`,
    );
  }
  return outcome;
}

/** Writes `source` to `file` in the project and runs it with node; returns the last stdout line as JSON. */
export function runScript(
  project: string,
  file: string,
  source: string,
  env: Record<string, string> = {},
): unknown {
  writeFileSync(join(project, file), source);
  const { stdout } = runIn(project, process.execPath, [file], { env });
  const last = stdout.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(last);
  } catch {
    throw new Error(`${file} did not end with a JSON line:\n${stdout}`);
  }
}
