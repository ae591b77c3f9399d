import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
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
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInNewContext } from "node:vm";
import { inheritedEnv } from "@evals/core/process";
import { execa } from "execa";

/**
 * OpenCode turns its whole bundled models.dev snapshot (225 providers, thousands of models) into
 * provider entries at every start: about a quarter of a replayed run's CPU (tools/bench opencode). Given
 * OPENCODE_MODELS_PATH, it reads that file instead of the snapshot. This module makes, once per
 * machine and `opencode` binary, a file with one provider's entry of that same snapshot, and hands it
 * out only when OpenCode shows the provider identically from it and from its snapshot
 * (`opencode models <provider> --verbose`: ids, limits, costs, capabilities, variants). That check
 * starts OpenCode twice (~5 s of CPU), so a file already seen to pass it (its hash is in
 * CHECKED_MODELS_DBS) is not checked again.
 */

/**
 * sha256 of the files `opencode models <provider> --verbose` showed the same as the snapshot:
 * anthropic of opencode-ai 1.18.33 (test/start-state.opencode.test.ts checks it still is).
 */
export const CHECKED_MODELS_DBS: ReadonlySet<string> = new Set([
  "dd9c1d1668841ecd5994a72621492aead8b4191120022c1d678ee7c3c0fb3d67",
]);

// Bump when the file's making changes: an old one is then never used.
const FORMAT = 1;

/**
 * The path of a models.dev database holding only `provider` as the `opencode` binary `bin` ships it,
 * made on first use (under the OS temp folder, keyed by the binary and the provider); undefined when
 * it cannot be made or OpenCode does not show the provider the same from it (then the run uses the
 * snapshot, as without this).
 */
export async function providerModelsDb(bin: string, provider: string): Promise<string | undefined> {
  if (!/^[a-z0-9][a-z0-9._-]*$/i.test(provider)) return undefined;
  const dir = modelsDbDir(bin, provider);
  const key = `${dir}\n`;
  let made = pending.get(key);
  if (!made) {
    made = usableOrMade(bin, provider, dir).finally(() => pending.delete(key));
    pending.set(key, made);
  }
  return made;
}

/** The folder of `provider`'s file for `bin` (one per binary: its path, size and mtime). */
export function modelsDbDir(bin: string, provider: string): string {
  let identity = bin;
  try {
    const real = realpathSync(bin);
    const stat = statSync(real);
    identity = `${real}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    // Not there: the run's own start reports it.
  }
  const hash = createHash("sha256").update(`${FORMAT}\n${identity}`).digest("hex").slice(0, 16);
  return join(tmpdir(), `evals-opencode-models-${hash}-${provider}`);
}

/** The file in a made folder. */
export const MODELS_DB_FILE = "models.json";
/** Written instead when OpenCode showed the provider differently: do not try again for this binary. */
const UNUSABLE_FILE = "unusable";

const pending = new Map<string, Promise<string | undefined>>();

async function usableOrMade(bin: string, provider: string, dir: string): Promise<string | undefined> {
  const file = join(dir, MODELS_DB_FILE);
  if (existsSync(join(dir, UNUSABLE_FILE))) return undefined;
  if (holdsProvider(file, provider)) return file;
  // Missing, or half-written or damaged by someone else: made again from scratch.
  rmSync(dir, { recursive: true, force: true });
  const scratch = mkdtempSync(`${dir}.making-`);
  try {
    const entry = snapshotEntry(bin, provider);
    const candidate = join(scratch, MODELS_DB_FILE);
    const content = entry ? JSON.stringify({ [provider]: entry }) : undefined;
    if (content) writeFileSync(candidate, content);
    const checked =
      entry === undefined || content === undefined
        ? "different"
        : CHECKED_MODELS_DBS.has(createHash("sha256").update(content).digest("hex"))
          ? "same"
          : await showsTheSame(bin, provider, entry, candidate, scratch);
    // A check that could not run (OpenCode failed, timed out) is tried again by the next run.
    if (checked === "failed") {
      rmSync(scratch, { recursive: true, force: true });
      return undefined;
    }
    const same = checked === "same";
    if (!same)
      writeFileSync(
        join(scratch, UNUSABLE_FILE),
        "no entry for this provider in the snapshot, or opencode showed it differently\n",
      );
    for (const name of readdirSync(scratch)) {
      if (name !== MODELS_DB_FILE && name !== UNUSABLE_FILE) rmSync(join(scratch, name), { recursive: true });
    }
    try {
      // Atomic: a reader sees the whole folder or none. Another process may have made it meanwhile.
      renameSync(scratch, dir);
    } catch {
      rmSync(scratch, { recursive: true, force: true });
    }
    return same && holdsProvider(file, provider) ? file : undefined;
  } catch {
    rmSync(scratch, { recursive: true, force: true });
    return undefined;
  }
}

function holdsProvider(file: string, provider: string): boolean {
  try {
    const db = JSON.parse(readFileSync(file, "utf8")) as Record<string, { id?: unknown; models?: unknown }>;
    return db[provider]?.id === provider && typeof db[provider]?.models === "object";
  } catch {
    return false;
  }
}

/**
 * `provider`'s entry of the models.dev snapshot inside the binary: an object literal of plain data
 * (`anthropic:{id:"anthropic",...}`), read by a brace-matching scan and evaluated in an empty context.
 */
function snapshotEntry(bin: string, provider: string): Record<string, unknown> | undefined {
  const needle = Buffer.from(`${provider}:{id:"${provider}",`);
  const fd = openSync(bin, "r");
  try {
    const size = statSync(bin).size;
    const chunk = Buffer.alloc(8 * 1024 * 1024);
    for (let offset = 0; offset < size; offset += chunk.length - needle.length) {
      const read = readSync(fd, chunk, 0, chunk.length, offset);
      const at = chunk.subarray(0, read).indexOf(needle);
      if (at < 0) continue;
      const start = offset + at + provider.length + 1;
      const literal = balancedLiteral(fd, start, size);
      if (!literal) return undefined;
      const value = runInNewContext(`(${literal})`, Object.create(null), { timeout: 2000 }) as unknown;
      return value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
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
