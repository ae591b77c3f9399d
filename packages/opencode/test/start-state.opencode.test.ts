import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inheritedEnv } from "@evals/core/process";
import {
  firstUserText,
  type ModelServer,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "@evals/vcr";
import { execa } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { findOpenCode, SUPPORTED_OPENCODE_VERSION } from "../src/bin.js";
import { runOpenCode } from "../src/index.js";
import {
  CHECKED_MODELS_DBS,
  MODELS_DB_FILE,
  MODELS_DIR_ENV,
  modelsDbDir,
  openCodeVersion,
  providerModelsDb,
  showsTheSame,
} from "../src/models-db.js";

// What makes an OpenCode start cheaper (its provider's models only, the plugin install skipped) must
// neither carry one run's state into the next nor change what OpenCode sends. The real `opencode` CLI
// against a scripted loopback model; the models files go to a private folder of this file (never the
// machine's own cache folder, which concurrent runs use).
const TIMEOUT = 300_000;
const servers: ModelServer[] = [];
const dirs: string[] = [];
const savedModelsDir = process.env[MODELS_DIR_ENV];
let privateModels = "";
beforeAll(() => {
  privateModels = mkdtempSync(join(tmpdir(), "oc-start-state-models-"));
  process.env[MODELS_DIR_ENV] = privateModels;
});
afterAll(() => {
  process.env[MODELS_DIR_ENV] = savedModelsDir;
  if (savedModelsDir === undefined) delete process.env[MODELS_DIR_ENV];
  rmSync(privateModels, { recursive: true, force: true });
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

async function serve(): Promise<ModelServer> {
  const server = await startModelServer({
    source: scripted((request) =>
      firstUserText(request)?.includes("list") && !JSON.stringify(request).includes("tool_result")
        ? reply(text("Listing."), toolUse("bash", { command: "ls" }))
        : reply(text("Done.")),
    ),
  });
  servers.push(server);
  return server;
}

/** The ids of the sessions in a kept sandbox's OpenCode database (`opencode db`, offline). */
async function sessionsIn(sandbox: string, cwd: string): Promise<string[]> {
  const out = await execa(findOpenCode(), ["db", "select id from session", "--format", "json"], {
    cwd,
    extendEnv: false,
    env: {
      ...inheritedEnv(),
      HOME: join(sandbox, "home"),
      XDG_CONFIG_HOME: join(sandbox, "config"),
      XDG_DATA_HOME: join(sandbox, "data"),
      XDG_CACHE_HOME: join(sandbox, "cache"),
      XDG_STATE_HOME: join(sandbox, "state"),
      npm_config_offline: "true",
    },
  });
  return (JSON.parse(out.stdout) as { id: string }[]).map((row) => row.id);
}

const sessionOf = (result: Awaited<ReturnType<typeof runOpenCode>>) =>
  (result.run.events.find((event) => event.type === "final_result") as { session_id?: string } | undefined)
    ?.session_id;

describe("an OpenCode run's start", () => {
  it(
    "carries nothing of one run into the next: the second run's database holds its own session only",
    async () => {
      const server = await serve();
      const cwd = temp("oc-state-work-");
      writeFileSync(join(cwd, "a.txt"), "alpha\n");
      const outputRoot = temp("oc-state-out-");
      const first = await runOpenCode({
        prompt: "FIRST-RUN-MARKER: list the files",
        cwd,
        baseUrl: server.url,
        outputRoot,
        keepSandbox: "always",
      });
      const second = await runOpenCode({
        prompt: "say done",
        cwd,
        baseUrl: server.url,
        outputRoot,
        keepSandbox: "always",
      });
      for (const result of [first, second]) dirs.push(result.sandbox_dir as string);
      expect(first.error).toBeUndefined();
      expect(second.error).toBeUndefined();
      expect(first.sandbox_dir).not.toBe(second.sandbox_dir);
      const firstSession = sessionOf(first);
      const secondSession = sessionOf(second);
      expect(firstSession).toBeTruthy();
      expect(secondSession).not.toBe(firstSession);
      expect(await sessionsIn(second.sandbox_dir as string, cwd)).toEqual([secondSession]);
      expect(await sessionsIn(first.sandbox_dir as string, cwd)).toEqual([firstSession]);
      // Nothing of the first conversation reached the model in the second run.
      const secondRequests = server.interactions.slice(-1);
      expect(JSON.stringify(secondRequests[0]?.request.body)).not.toContain("FIRST-RUN-MARKER");
      expect(JSON.stringify(secondRequests[0]?.request.body)).toContain("say done");
      // The models file is shared, read-only for OpenCode: no run wrote into its folder.
      const shared = modelsDbDir(findOpenCode(), "anthropic");
      expect(existsSync(join(shared, MODELS_DB_FILE))).toBe(true);
      expect(JSON.stringify(readFileSync(join(shared, MODELS_DB_FILE), "utf8"))).not.toContain(
        "FIRST-RUN-MARKER",
      );
    },
    TIMEOUT,
  );

  it(
    "sends the model the same requests with only its provider's models as with OpenCode's whole snapshot",
    async () => {
      // One model server each: the script numbers its tool ids per server.
      const [server, other] = [await serve(), await serve()];
      const cwd = temp("oc-same-work-");
      writeFileSync(join(cwd, "a.txt"), "alpha\n");
      const outputRoot = temp("oc-same-out-");
      const trimmed = await runOpenCode({ prompt: "list the files", cwd, baseUrl: server.url, outputRoot });
      const trimmedRequests = server.interactions.map((interaction) => interaction.request.body);
      // OPENCODE_MODELS_PATH removed: OpenCode reads its bundled snapshot of every provider.
      const whole = await runOpenCode({
        prompt: "list the files",
        cwd,
        baseUrl: other.url,
        outputRoot,
        env: { OPENCODE_MODELS_PATH: undefined },
      });
      const wholeRequests = other.interactions.map((interaction) => interaction.request.body);
      expect(trimmed.error).toBeUndefined();
      expect(whole.error).toBeUndefined();
      expect(trimmedRequests).toHaveLength(2);
      // Each run's private sandbox path (its temp folder, in the bash tool's text) differs; all else is the same.
      const comparable = (bodies: unknown[]) =>
        JSON.stringify(bodies).replace(/evals-opencode-[A-Za-z0-9-]+/g, "evals-opencode-SANDBOX");
      expect(comparable(trimmedRequests)).toBe(comparable(wholeRequests));
      expect(trimmed.run.events.filter((event) => event.type === "tool_call")).toHaveLength(1);
    },
    TIMEOUT,
  );

  it(
    "hands out, unchecked, only a models file OpenCode shows the same as its snapshot",
    async () => {
      const bin = findOpenCode();
      const file = (await providerModelsDb(bin, "anthropic")) as string;
      const content = readFileSync(file, "utf8");
      // The file of this OpenCode version is one CHECKED_MODELS_DBS lists, keyed by that version...
      const version = openCodeVersion(bin);
      expect(version).toBe(SUPPORTED_OPENCODE_VERSION);
      const hash = createHash("sha256").update(content).digest("hex");
      expect(CHECKED_MODELS_DBS.has(`${version}:${hash}`)).toBe(true);
      expect(CHECKED_MODELS_DBS.has(`0.0.1:${hash}`)).toBe(false);
      // ...and OpenCode still shows the provider the same from it as from its bundled snapshot.
      const entry = (JSON.parse(content) as Record<string, Record<string, unknown>>).anthropic as Record<
        string,
        unknown
      >;
      expect(await showsTheSame(bin, "anthropic", entry, file, temp("oc-checked-"))).toBe("same");
      // A file with one model's limit changed is not shown the same.
      const changed = JSON.parse(content) as {
        anthropic: { models: Record<string, { limit: { output: number } }> };
      };
      (changed.anthropic.models["claude-sonnet-4-5"] as { limit: { output: number } }).limit.output = 12_345;
      const changedFile = join(temp("oc-changed-"), MODELS_DB_FILE);
      writeFileSync(changedFile, JSON.stringify(changed));
      expect(await showsTheSame(bin, "anthropic", entry, changedFile, temp("oc-checked-"))).toBe("different");
    },
    TIMEOUT,
  );

  it(
    "makes the models file again when it is missing or half-written, and never hands out a half-written one",
    async () => {
      const bin = findOpenCode();
      const dir = modelsDbDir(bin, "anthropic");
      const file = join(dir, MODELS_DB_FILE);
      // Half-written: what a process killed while writing would leave (if it wrote in place).
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, '{"anthropic":{"id":"anthropic","models":{"claude-sonnet-4-5":{"id":"cla');
      const made = await providerModelsDb(bin, "anthropic");
      expect(made).toBe(file);
      const db = JSON.parse(readFileSync(file, "utf8")) as Record<string, { id: string; models: object }>;
      expect(Object.keys(db)).toEqual(["anthropic"]);
      expect(Object.keys(db.anthropic?.models ?? {})).toContain("claude-sonnet-4-5");
      // Missing: made again, the same.
      const before = readFileSync(file, "utf8");
      rmSync(dir, { recursive: true, force: true });
      expect(await providerModelsDb(bin, "anthropic")).toBe(file);
      expect(readFileSync(file, "utf8")).toBe(before);
      // A run after a damaged file: it works, and the file is whole again.
      writeFileSync(file, "{");
      const server = await serve();
      const cwd = temp("oc-damaged-work-");
      const result = await runOpenCode({
        prompt: "say done",
        cwd,
        baseUrl: server.url,
        outputRoot: temp("oc-damaged-out-"),
      });
      expect(result.error).toBeUndefined();
      expect(readFileSync(file, "utf8")).toBe(before);
      // A provider OpenCode has no snapshot entry for gets no file (the run keeps the whole database).
      expect(await providerModelsDb(bin, "no-such-provider")).toBeUndefined();
    },
    TIMEOUT,
  );
});
