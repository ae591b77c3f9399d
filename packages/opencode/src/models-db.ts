import { createHash, randomUUID } from "node:crypto";
import {
  closeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { inheritedEnv } from "@evals/core/process";
import { execa } from "execa";
import { parseJsLiteral } from "./js-literal.js";

/**
 * OpenCode turns its whole bundled models.dev snapshot (225 providers, thousands of models) into
 * provider entries at every start: about a quarter of a replayed run's CPU (tools/bench opencode). Given
 * OPENCODE_MODELS_PATH, it reads that file instead of the snapshot. This module makes, once per
 * user and `opencode` binary, a file with one provider's entry of that same snapshot, and hands it
 * out only when OpenCode shows the provider identically from it and from its snapshot
 * (`opencode models <provider> --verbose`: ids, limits, costs, capabilities, variants). That check
 * starts OpenCode twice (~5 s of CPU), so a file already seen to pass it (its hash is in
 * CHECKED_MODELS_DBS) is not checked again.
 */

/**
 * `<opencode version>:<sha256>` of the files `opencode models <provider> --verbose` showed the same as
 * the snapshot: anthropic of opencode-ai 1.18.33 (test/start-state.opencode.test.ts checks it still is).
 * Keyed by the version too: the same file may be shown differently by another OpenCode.
 */
export const CHECKED_MODELS_DBS: ReadonlySet<string> = new Set([
  "1.18.33:dd9c1d1668841ecd5994a72621492aead8b4191120022c1d678ee7c3c0fb3d67",
]);

// Bump when the file's making or its checking changes: an old folder (and its "unusable" marker) is then never used.
const FORMAT = 2;

/** Overrides the folder the models files are made in (default `$XDG_CACHE_HOME/evals/opencode-models`). */
export const MODELS_DIR_ENV = "EVALS_OPENCODE_MODELS_DIR";

/** The file in a made folder. */
export const MODELS_DB_FILE = "models.json";
/** Beside it: the sha256 of the file as it was checked; a file that no longer has it is not used. */
const HASH_FILE = "models.json.sha256";
/** Written instead when OpenCode showed the provider differently: do not try again for this binary. */
const UNUSABLE_FILE = "unusable";

/**
 * The path of a models.dev database holding only `provider` as the `opencode` binary `bin` ships it,
 * made on first use (in this user's cache folder, keyed by the binary and the provider); undefined when
 * it cannot be made, when the folder is not safely this user's, or when OpenCode does not show the
 * provider the same from it (then the run uses the snapshot, as without this). Never throws.
 */
export async function providerModelsDb(bin: string, provider: string): Promise<string | undefined> {
  if (!/^[a-z0-9][a-z0-9._-]*$/i.test(provider)) return undefined;
  let dir: string;
  try {
    dir = modelsDbDir(bin, provider);
  } catch {
    return undefined;
  }
  let made = pending.get(dir);
  if (!made) {
    made = usableOrMade(bin, provider, dir)
      .catch(() => undefined)
      .finally(() => pending.delete(dir));
    pending.set(dir, made);
  }
  return made;
}

/** The folder all models files go in: this user's, never a shared one (others could plant a file there). */
export function modelsRoot(env: NodeJS.ProcessEnv = process.env): string {
  const override = env[MODELS_DIR_ENV];
  if (override) return override;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "evals", "opencode-models");
}

/** The folder of `provider`'s file for `bin` (one per binary: its path, size, mtime and version). */
export function modelsDbDir(bin: string, provider: string): string {
  let identity = bin;
  try {
    const real = realpathSync(bin);
    const stat = statSync(real);
    identity = `${real}:${stat.size}:${stat.mtimeMs}:${openCodeVersion(bin) ?? ""}`;
  } catch {
    // Not there: the run's own start reports it.
  }
  const hash = createHash("sha256").update(`${FORMAT}\n${identity}`).digest("hex").slice(0, 16);
  return join(modelsRoot(), `${hash}-${provider}`);
}

/**
 * The version of the npm package the binary came in (`package.json` beside its `bin/` folder:
 * opencode-ai, or opencode-<platform>), or undefined when there is none to tell.
 */
export function openCodeVersion(bin: string): string | undefined {
  try {
    const pkg = JSON.parse(
      readFileSync(join(dirname(dirname(realpathSync(bin))), "package.json"), "utf8"),
    ) as {
      name?: unknown;
      version?: unknown;
    };
    return typeof pkg.name === "string" && pkg.name.startsWith("opencode") && typeof pkg.version === "string"
      ? pkg.version
      : undefined;
  } catch {
    return undefined;
  }
}

const pending = new Map<string, Promise<string | undefined>>();

async function usableOrMade(bin: string, provider: string, dir: string): Promise<string | undefined> {
  const root = dirname(dir);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  if (!isOurs(root, "dir")) return undefined;
  const found = madeState(dir);
  if (found === "usable") return join(dir, MODELS_DB_FILE);
  if (found === "unusable") return undefined;
  removeLeftovers(root);
  // Missing or damaged: made in a scratch folder (mode 0700), never by removing what is there first.
  const scratch = mkdtempSync(join(root, `.making-${basename(dir)}-`));
  try {
    const checked = await makeAndCheck(bin, provider, scratch);
    // A check that could not run (OpenCode failed, timed out) is tried again by the next run.
    if (checked === "failed") return undefined;
    for (const name of readdirSync(scratch)) {
      if (![MODELS_DB_FILE, HASH_FILE, UNUSABLE_FILE].includes(name))
        rmSync(join(scratch, name), { recursive: true });
    }
    install(scratch, dir);
    return checked === "same" && madeState(dir) === "usable" ? join(dir, MODELS_DB_FILE) : undefined;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Scratch and aside folders a killed process left: an hour old (no making takes that long). */
function removeLeftovers(root: string): void {
  for (const name of readdirSync(root)) {
    if (!name.startsWith(".making-") && !name.startsWith(".damaged-")) continue;
    try {
      const path = join(root, name);
      if (Date.now() - lstatSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
    } catch {
      // Another process removed it, or it is not ours to remove.
    }
  }
}

/** Writes the provider's file (and its hash) or the "unusable" marker into `scratch`. */
async function makeAndCheck(
  bin: string,
  provider: string,
  scratch: string,
): Promise<"same" | "different" | "failed"> {
  const entry = snapshotEntry(bin, provider);
  const candidate = join(scratch, MODELS_DB_FILE);
  const content = entry ? JSON.stringify({ [provider]: entry }) : undefined;
  const hash = content === undefined ? "" : sha256(content);
  if (content !== undefined) writeFileSync(candidate, content, { mode: 0o600 });
  const checked =
    entry === undefined || content === undefined
      ? "different"
      : CHECKED_MODELS_DBS.has(`${openCodeVersion(bin)}:${hash}`)
        ? "same"
        : await showsTheSame(bin, provider, entry, candidate, scratch);
  if (checked === "same") writeFileSync(join(scratch, HASH_FILE), `${hash}\n`, { mode: 0o600 });
  if (checked === "different")
    writeFileSync(
      join(scratch, UNUSABLE_FILE),
      "no entry for this provider in the snapshot, or opencode showed it differently\n",
      { mode: 0o600 },
    );
  return checked;
}

/**
 * Puts the made `scratch` folder at `dir`, atomically: a reader sees a whole folder or none. Another
 * process may have made it meanwhile (kept); a damaged one is first renamed aside, then removed (a run
 * reading it just then loses the race and falls back to the snapshot).
 */
function install(scratch: string, dir: string): void {
  try {
    renameSync(scratch, dir);
    return;
  } catch {
    // Something is there.
  }
  if (madeState(dir) !== "missing-or-damaged") return;
  const aside = `${dirname(dir)}/.damaged-${basename(dir)}-${randomUUID()}`;
  try {
    renameSync(dir, aside);
  } catch {
    return;
  }
  try {
    renameSync(scratch, dir);
  } catch {
    // Another process put its own in place first.
  }
  try {
    rmSync(aside, { recursive: true, force: true });
  } catch {
    // Someone else's folder we may not empty: left aside, never used.
  }
}

/**
 * What a made folder holds: "usable" only when the folder, the file and its hash file are this user's
 * regular entries (no symlinks), writable by no one else, and the file still has the hash it was checked with.
 */
function madeState(dir: string): "usable" | "unusable" | "missing-or-damaged" {
  try {
    if (!isOurs(dir, "dir")) return "missing-or-damaged";
    if (isOurs(join(dir, UNUSABLE_FILE), "file")) return "unusable";
    const file = join(dir, MODELS_DB_FILE);
    const hashFile = join(dir, HASH_FILE);
    if (!isOurs(file, "file") || !isOurs(hashFile, "file")) return "missing-or-damaged";
    return readFileSync(hashFile, "utf8").trim() === sha256(readFileSync(file))
      ? "usable"
      : "missing-or-damaged";
  } catch {
    return "missing-or-damaged";
  }
}

/** `path` is a directory or regular file (not a symlink) of this user, writable by no group or other. */
function isOurs(path: string, kind: "dir" | "file"): boolean {
  try {
    const stat = lstatSync(path);
    const ofKind = kind === "dir" ? stat.isDirectory() : stat.isFile();
    const uid = process.getuid?.();
    return ofKind && (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function sha256(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}

/**
 * `provider`'s entry of the models.dev snapshot inside the binary, parsed as data (never run: a
 * literal that is not plain data gives undefined, and the run keeps the snapshot).
 */
function snapshotEntry(bin: string, provider: string): Record<string, unknown> | undefined {
  const literal = snapshotLiteral(bin, provider);
  if (!literal) return undefined;
  try {
    const value = parseJsLiteral(literal);
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The source text of `provider`'s entry in the binary's bundled snapshot: an object literal of plain
 * data (`anthropic:{id:"anthropic",...}`, or `"amazon-bedrock":{...}`), found by a brace-matching scan.
 */
export function snapshotLiteral(bin: string, provider: string): string | undefined {
  const fd = openSync(bin, "r");
  try {
    const size = statSync(bin).size;
    const chunk = Buffer.alloc(8 * 1024 * 1024);
    for (const key of [provider, JSON.stringify(provider)]) {
      const needle = Buffer.from(`${key}:{id:${JSON.stringify(provider)},`);
      for (let offset = 0; offset < size; offset += chunk.length - needle.length) {
        const read = readSync(fd, chunk, 0, chunk.length, offset);
        const at = chunk.subarray(0, read).indexOf(needle);
        if (at >= 0) return balancedLiteral(fd, offset + at + key.length + 1, size);
      }
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The object literal starting at `start` (a `{`), up to its matching `}`, strings skipped. */
function balancedLiteral(fd: number, start: number, size: number): string | undefined {
  const window = Buffer.alloc(Math.min(4 * 1024 * 1024, size - start));
  const read = readSync(fd, window, 0, window.length, start);
  let depth = 0;
  let quote: number | undefined;
  for (let i = 0; i < read; i++) {
    const c = window[i];
    if (quote !== undefined) {
      if (c === 0x5c) i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === 0x22 || c === 0x27 || c === 0x60) quote = c;
    else if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) return window.subarray(0, i + 1).toString("utf8");
  }
  return undefined;
}

/**
 * Whether `opencode models <provider> --verbose` prints the same from `file` as from the snapshot:
 * "failed" when either listing did not succeed.
 */
export async function showsTheSame(
  bin: string,
  provider: string,
  entry: Record<string, unknown>,
  file: string,
  scratch: string,
): Promise<"same" | "different" | "failed"> {
  // The provider is listed only with a credential: a dummy one in each of its env variables.
  const keys = Array.isArray(entry.env) ? entry.env.filter((name) => typeof name === "string") : [];
  const list = async (extra: Record<string, string>, name: string) => {
    const home = join(scratch, name);
    const env: Record<string, string> = {
      ...inheritedEnv(),
      HOME: join(home, "home"),
      XDG_CONFIG_HOME: join(home, "config"),
      XDG_DATA_HOME: join(home, "data"),
      XDG_CACHE_HOME: join(home, "cache"),
      XDG_STATE_HOME: join(home, "state"),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      npm_config_offline: "true",
      NO_COLOR: "1",
      ...Object.fromEntries(keys.map((key) => [key, "evals-offline"])),
      ...extra,
    };
    const out = await execa(bin, ["models", provider, "--verbose"], {
      cwd: scratch,
      env,
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    });
    return out.exitCode === 0 ? String(out.stdout) : undefined;
  };
  const [fromSnapshot, fromFile] = await Promise.all([
    list({}, "snapshot"),
    list({ OPENCODE_MODELS_PATH: file }, "file"),
  ]);
  if (fromSnapshot === undefined || fromFile === undefined) return "failed";
  return fromSnapshot.includes(`${provider}/`) && fromSnapshot === fromFile ? "same" : "different";
}
