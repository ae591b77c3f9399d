import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { type ModelServer, reply, scripted, startModelServer, text } from "@evals/vcr";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { findOpenCode } from "../src/bin.js";
import { runOpenCode } from "../src/index.js";
import {
  CHECKED_MODELS_DBS,
  MODELS_DB_FILE,
  MODELS_DIR_ENV,
  modelsDbDir,
  modelsRoot,
  openCodeVersion,
  providerModelsDb,
} from "../src/models-db.js";

// The provider's models file decides what a run is graded on: it is made in this user's own folder and
// handed out only while it is still the checked file, in a folder no one else owns or can write. The
// real opencode binary; each test points EVALS_OPENCODE_MODELS_DIR at a private folder.
const TIMEOUT = 300_000;
const dirs: string[] = [];
const servers: ModelServer[] = [];
const saved = process.env[MODELS_DIR_ENV];
const bin = findOpenCode();
// Root can give a folder away, as another local user's would be; others cannot make one to test with.
const canChown = process.getuid?.() === 0;
const NOBODY = 65534;

beforeAll(() => {
  delete process.env[MODELS_DIR_ENV];
});
afterAll(() => {
  if (saved === undefined) delete process.env[MODELS_DIR_ENV];
  else process.env[MODELS_DIR_ENV] = saved;
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh models folder for the test (mode 0700, like the default one). */
function privateRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "oc-models-db-"));
  dirs.push(root);
  process.env[MODELS_DIR_ENV] = root;
  return root;
}

const sha256 = (content: string) => createHash("sha256").update(content).digest("hex");
const isChecked = (content: string) => CHECKED_MODELS_DBS.has(`${openCodeVersion(bin)}:${sha256(content)}`);

/** The checked file's content with one model's output limit changed: what a planted file would hold. */
function planted(content: string): string {
  const db = JSON.parse(content) as { anthropic: { models: Record<string, { limit: { output: number } }> } };
  (db.anthropic.models["claude-sonnet-4-5"] as { limit: { output: number } }).limit.output = 12_345;
  return JSON.stringify(db);
}

describe("the provider's models file", () => {
  it("goes in this user's cache folder by default, never the shared temp folder", () => {
    expect(modelsRoot({ XDG_CACHE_HOME: "/home/u/.cache" })).toBe("/home/u/.cache/evals/opencode-models");
    expect(modelsRoot({ HOME: "/x", XDG_CACHE_HOME: "/c", [MODELS_DIR_ENV]: "/mine" })).toBe("/mine");
    expect(modelsDbDir(bin, "anthropic").startsWith(tmpdir())).toBe(false);
  });

  it(
    "is not made in a folder others can write or another user owns",
    async () => {
      const root = privateRoot();
      chmodSync(root, 0o777);
      expect(await providerModelsDb(bin, "anthropic")).toBeUndefined();
      expect(readdirSync(root)).toEqual([]);
      if (canChown) {
        chmodSync(root, 0o700);
        chownSync(root, NOBODY, NOBODY);
        expect(await providerModelsDb(bin, "anthropic")).toBeUndefined();
        expect(readdirSync(root)).toEqual([]);
        chownSync(root, 0, 0);
      }
      chmodSync(root, 0o700);
      const file = (await providerModelsDb(bin, "anthropic")) as string;
      expect(file.startsWith(root)).toBe(true);
      expect(isChecked(readFileSync(file, "utf8"))).toBe(true);
    },
    TIMEOUT,
  );

  it(
    "never hands out a planted file: a symlink, changed content, a folder others can write or own",
    async () => {
      privateRoot();
      const file = (await providerModelsDb(bin, "anthropic")) as string;
      const dir = join(file, "..");
      const good = readFileSync(file, "utf8");
      const elsewhere = join(mkdtempSync(join(tmpdir(), "oc-planted-")), "models.json");
      dirs.push(join(elsewhere, ".."));
      writeFileSync(elsewhere, planted(good));
      const plants: Record<string, () => void> = {
        "a symlink to another file": () => {
          rmSync(file);
          symlinkSync(elsewhere, file);
        },
        "changed content (its hash no longer matches)": () => writeFileSync(file, planted(good)),
        "a folder others can write": () => chmodSync(dir, 0o777),
        "the folder a symlink to another folder": () => {
          const other = mkdtempSync(join(tmpdir(), "oc-planted-dir-"));
          dirs.push(other);
          writeFileSync(join(other, MODELS_DB_FILE), planted(good));
          writeFileSync(join(other, `${MODELS_DB_FILE}.sha256`), `${sha256(planted(good))}\n`);
          rmSync(dir, { recursive: true });
          symlinkSync(other, dir);
        },
        ...(canChown ? { "a folder another user owns": () => chownSync(dir, NOBODY, NOBODY) } : {}),
      };
      for (const [plant, apply] of Object.entries(plants)) {
        apply();
        expect(await providerModelsDb(bin, "anthropic"), plant).toBe(file);
        // Made again: this user's regular file in this user's folder, the checked content.
        expect(lstatSync(dir).isSymbolicLink(), plant).toBe(false);
        expect(lstatSync(file).isSymbolicLink(), plant).toBe(false);
        expect(statSync(dir).mode & 0o022, plant).toBe(0);
        expect(statSync(dir).uid, plant).toBe(process.getuid?.());
        expect(readFileSync(file, "utf8"), plant).toBe(good);
      }
      // The planted file itself is untouched, and no folder was left behind aside or half-made.
      expect(readFileSync(elsewhere, "utf8")).toBe(planted(good));
      expect(readdirSync(join(dir, "..")).filter((name) => name.startsWith("."))).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "removes what a killed process left half-made an hour ago, not what another is making now",
    async () => {
      const root = privateRoot();
      const old = join(root, `.making-${basename(modelsDbDir(bin, "anthropic"))}-killed`);
      const now = join(root, `.making-${basename(modelsDbDir(bin, "anthropic"))}-running`);
      for (const dir of [old, now]) {
        mkdirSync(dir);
        writeFileSync(join(dir, MODELS_DB_FILE), '{"anthropic":{"id":"anth');
      }
      const hourAgo = new Date(Date.now() - 2 * 3_600_000);
      utimesSync(old, hourAgo, hourAgo);
      expect(await providerModelsDb(bin, "anthropic")).toBeTruthy();
      expect(existsSync(old)).toBe(false);
      expect(existsSync(now)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    "a models folder that cannot be made leaves the run as it was: it passes on the whole snapshot",
    async () => {
      const root = privateRoot();
      const notAFolder = join(root, "a-file");
      writeFileSync(notAFolder, "");
      process.env[MODELS_DIR_ENV] = join(notAFolder, "models");
      expect(await providerModelsDb(bin, "anthropic")).toBeUndefined();
      const server = await startModelServer({ source: scripted(() => reply(text("Done."))) });
      servers.push(server);
      const cwd = mkdtempSync(join(tmpdir(), "oc-models-db-work-"));
      dirs.push(cwd);
      const outputRoot = mkdtempSync(join(tmpdir(), "oc-models-db-out-"));
      dirs.push(outputRoot);
      const result = await runOpenCode({ prompt: "say done", cwd, baseUrl: server.url, outputRoot });
      expect(result.error).toBeUndefined();
      expect(result.run.events.some((event) => event.type === "final_result")).toBe(true);
      // Its private sandbox is not kept (removed as after any passing run).
      expect(result.sandbox_dir).toBeUndefined();
    },
    TIMEOUT,
  );
});
