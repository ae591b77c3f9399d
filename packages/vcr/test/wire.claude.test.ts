import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeProjectKey, listToolCalls, type Run, runFromStreamJson } from "@evals/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CassetteMissingError,
  canRefuseNetwork,
  countToolResults,
  diffValues,
  formatDifferences,
  isSubagentRequest,
  lastToolResult,
  type ModelServer,
  networkRefused,
  normalizeRequest,
  type ReplaySource,
  readRecording,
  recording,
  replaying,
  reply,
  requestEnvironment,
  scripted,
  startModelServer,
  text,
  toolUse,
  wireSource,
} from "../src/index.js";
import { requestKey } from "../src/normalize.js";
import { CLAUDE_BIN, type ClaudeRun, runClaude } from "./claude.js";
import { startProxyTrap } from "./proxy-trap.js";

const PROMPT = "Follow the steps.";
const FILES = { "notes.txt": "alpha\nbeta\n" };
const setup = (cwd: string) => {
  for (const [name, content] of Object.entries(FILES)) writeFileSync(join(cwd, name), content);
};

/** The model behind the recording: Bash, Read (absolute path), a subagent that runs Bash, text. */
function upstreamModel() {
  return scripted((request) => {
    const step = countToolResults(request);
    if (isSubagentRequest(request)) {
      return step === 0
        ? reply(toolUse("Bash", { command: "echo from-child" }))
        : reply(text(`child saw: ${lastToolResult(request)!.text}`));
    }
    const cwd = requestEnvironment(request).cwd!;
    switch (step) {
      case 0:
        return reply(text("Listing first."), toolUse("Bash", { command: "ls" }));
      case 1:
        return reply(toolUse("Read", { file_path: join(cwd, "notes.txt") }));
      case 2:
        return reply(
          toolUse("Agent", {
            subagent_type: "general-purpose",
            description: "echo",
            prompt: "SUBTASK: echo from the child",
            run_in_background: false,
          }),
        );
      default:
        return reply(text("All done."));
    }
  });
}

/** The trajectory to compare: each tool call's agent role, name, input (cwd masked) and status. */
function trajectory(run: Run, cwd?: string) {
  return listToolCalls(run).map((call) => ({
    agent: call.agent === "main" ? "main" : "subagent",
    name: call.name,
    input: JSON.parse(cwd ? JSON.stringify(call.input).split(cwd).join("<cwd>") : JSON.stringify(call.input)),
    status: call.status,
  }));
}

function cwdOf(result: ClaudeRun): string {
  const init = result.lines.find((line) => line.type === "system" && line.subtype === "init");
  return String(init?.cwd);
}

let dir: string;
let file: string;
let recorded: ClaudeRun;
let upstream: ModelServer;
const secret = "sk-ant-api03-VCRTESTSECRET0123456789";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vcr-wire-"));
  file = join(dir, "follow-steps.recording.json");
  upstream = await startModelServer({ source: upstreamModel() });
  const recorder = await startModelServer({
    source: recording({ upstream: upstream.url, file }),
  });
  try {
    // The CLI holds a real-looking key: it must never reach the file.
    recorded = await runClaude({
      prompt: PROMPT,
      env: { ...recorder.env(), ANTHROPIC_API_KEY: secret },
      setup,
    });
  } finally {
    await recorder.close();
  }
}, 90_000);

afterAll(async () => {
  await upstream?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("wire-level record and replay with the real claude CLI", () => {
  it("records every request/response pair through the proxy", () => {
    expect(recorded.exitCode, recorded.stderr).toBe(0);
    const stored = readRecording(file);
    expect(stored.claude_version).toBe("2.1.330");
    expect(stored.interactions).toHaveLength(upstream.interactions.length);
    expect(stored.interactions.length).toBe(6);
    expect(stored.metadata.upstream).toBe("loopback");
    expect(trajectory(recorded.run, cwdOf(recorded))).toEqual([
      { agent: "main", name: "Bash", input: { command: "ls" }, status: "ok" },
      { agent: "main", name: "Read", input: { file_path: "<cwd>/notes.txt" }, status: "ok" },
      {
        agent: "main",
        name: "Agent",
        input: {
          subagent_type: "general-purpose",
          description: "echo",
          prompt: "SUBTASK: echo from the child",
          run_in_background: false,
        },
        status: "ok",
      },
      { agent: "subagent", name: "Bash", input: { command: "echo from-child" }, status: "ok" },
    ]);
  });

  it("never writes the API key or sk-ant- tokens to the recording", () => {
    const written = readFileSync(file, "utf8");
    expect(written).not.toContain(secret);
    expect(written).not.toMatch(/sk-ant-/);
    expect(written).toContain('"x-api-key": "[REDACTED]"');
  });

  it("replays the recording with the real CLI: same trajectory, real tools, paths moved to the new folder", async () => {
    const server = await startModelServer({ source: replaying(file) });
    let hookLog = "";
    try {
      const replayed = await runClaude({
        prompt: PROMPT,
        env: server.env(),
        setup(cwd) {
          setup(cwd);
          // A real hook must fire during the replay (its files live outside the project folder,
          // which `ls` lists).
          writeFileSync(
            join(cwd, "..", "settings.json"),
            JSON.stringify({
              hooks: {
                PreToolUse: [
                  {
                    matcher: "*",
                    hooks: [{ type: "command", command: `cat >> "${join(cwd, "..", "hooks.log")}"` }],
                  },
                ],
              },
            }),
          );
        },
        args: ["--settings", "../settings.json"],
        inspect(cwd) {
          const log = join(cwd, "..", "hooks.log");
          hookLog = existsSync(log) ? readFileSync(log, "utf8") : "";
        },
      });
      expect(replayed.exitCode, replayed.stderr).toBe(0);
      expect(cwdOf(replayed)).not.toBe(cwdOf(recorded));
      expect(trajectory(replayed.run, cwdOf(replayed))).toEqual(trajectory(recorded.run, cwdOf(recorded)));
      // The tools really ran in the new folder: Read returned the file's content there.
      const read = listToolCalls(replayed.run).find((call) => call.name === "Read")!;
      expect(JSON.stringify(read.result?.output)).toContain("alpha");
      expect(hookLog.match(/"hook_event_name":"PreToolUse"/g)).toHaveLength(4);
      const source = server.source as ReplaySource;
      expect(source.divergences).toEqual([]);
      expect(source.unplayed()).toEqual([]);
      expect(server.interactions).toHaveLength(6);
      const final = replayed.lines.find((line) => line.type === "result")!;
      expect(final.result).toBe("All done.");
    } finally {
      await server.close();
    }
  });

  it("matches the requests of two runs in different folders (one a git repository) by their normalized keys", async () => {
    const first = await startModelServer({ source: upstreamModel() });
    const second = await startModelServer({ source: upstreamModel() });
    try {
      await runClaude({ prompt: PROMPT, env: first.env(), setup });
      await runClaude({
        prompt: PROMPT,
        env: second.env(),
        setup(cwd) {
          setup(cwd);
          execFileSync("git", ["init", "-q"], { cwd });
          execFileSync(
            "git",
            ["-c", "user.email=a@b.c", "-c", "user.name=n", "commit", "-q", "--allow-empty", "-m", "x"],
            {
              cwd,
            },
          );
        },
      });
      expect(first.interactions).toHaveLength(6);
      expect(second.interactions).toHaveLength(6);
      const differences = first.interactions.map((interaction, index) =>
        formatDifferences(
          diffValues(
            normalizeRequest(interaction.request).body,
            normalizeRequest(second.interactions[index]!.request).body,
          ),
        ),
      );
      expect(differences).toEqual(["", "", "", "", "", ""]);
      const keys = (server: ModelServer) =>
        server.interactions.map((interaction) => requestKey(interaction.request));
      expect(keys(second)).toEqual(keys(first));
      // ... while the raw requests did differ.
      expect(JSON.stringify(second.interactions[0]!.request.body)).not.toBe(
        JSON.stringify(first.interactions[0]!.request.body),
      );
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("replays in a folder whose git root is a folder above it (the CLI keys its memory folder by that root, as with a stray /tmp/.git)", async () => {
    const server = await startModelServer({ source: replaying(file) });
    try {
      const replayed = await runClaude({
        prompt: PROMPT,
        env: server.env(),
        setup(cwd) {
          setup(cwd);
          // The project folder stays a plain folder; only a folder above it is a repository.
          execFileSync("git", ["init", "-q"], { cwd: join(cwd, "..") });
        },
      });
      const first = server.interactions[0]!.request;
      const { cwd, configDir } = requestEnvironment(first.body);
      const rootKey = claudeProjectKey(join(cwd!, ".."));
      // The condition is real: the memory folder is named after the repository's root, not the cwd.
      expect(JSON.stringify(first.body)).toContain(`${configDir}/projects/${rootKey}/memory/`);
      expect(replayed.exitCode, replayed.stderr).toBe(0);
      const source = server.source as ReplaySource;
      expect(source.divergences).toEqual([]);
      expect(source.unplayed()).toEqual([]);
      expect(trajectory(replayed.run, cwdOf(replayed))).toEqual(trajectory(recorded.run, cwdOf(recorded)));
    } finally {
      await server.close();
    }
  });

  it("reports a changed prompt as a divergence at the first request, with a readable diff", async () => {
    const server = await startModelServer({ source: replaying(file) });
    try {
      const replayed = await runClaude({ prompt: "Follow the other steps.", env: server.env(), setup });
      expect(replayed.exitCode).toBe(1);
      const final = replayed.lines.find((line) => line.type === "result")!;
      expect(final.is_error).toBe(true);
      expect(String(final.result)).toContain("@evals/vcr replay diverged at request 1 (interaction #0");
      expect(String(final.result)).toContain(
        'messages[0].content[1].text: recorded "Follow the steps.", got "Follow the other steps."',
      );
      const source = server.source as ReplaySource;
      // Exactly one request: the divergence error is not retried.
      expect(server.interactions).toHaveLength(1);
      expect(source.divergences).toHaveLength(1);
      expect(source.divergences[0]).toMatchObject({ interaction: 0, request: 1, closest: { index: 0 } });
      expect(() => source.assertComplete()).toThrow(/diverged at request 1/);
    } finally {
      await server.close();
    }
  });

  it("reports a divergence in the middle of a run at the step where the tool output changed", async () => {
    const server = await startModelServer({ source: replaying(file) });
    try {
      // notes.txt now says something else: the Read result (step 3) differs from the recording.
      const replayed = await runClaude({
        prompt: PROMPT,
        env: server.env(),
        setup: (cwd) => writeFileSync(join(cwd, "notes.txt"), "gamma\n"),
      });
      const source = server.source as ReplaySource;
      expect(source.divergences).toHaveLength(1);
      expect(source.divergences[0]!.request).toBe(3);
      expect(source.divergences[0]!.message).toMatch(/messages\[\d+\]\.content\[0\]\.content.*alpha.*gamma/s);
      expect(listToolCalls(replayed.run).map((call) => call.name)).toEqual(["Bash", "Read"]);
    } finally {
      await server.close();
    }
  });

  it("fails a strict replay without a recording, naming the expected file", () => {
    const identity = { suite: "wire", caseId: "never-recorded", prompt: PROMPT, dir };
    let error: unknown;
    try {
      wireSource({ ...identity, mode: "strict" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CassetteMissingError);
    expect((error as Error).message).toMatch(
      /No wire recording for wire › never-recorded: expected .*wire\/never-recorded\.[0-9a-f]{8}\.recording\.json/,
    );
    expect((error as Error).message).toContain("VCR_MODE=record");
  });

  it("replays without any outbound connection: a refusing proxy sees nothing", async () => {
    const trap = await startProxyTrap();
    const server = await startModelServer({ source: replaying(file) });
    try {
      const replayed = await runClaude({ prompt: PROMPT, env: { ...server.env(), ...trap.env }, setup });
      expect(replayed.exitCode, replayed.stderr).toBe(0);
      expect(server.interactions).toHaveLength(readRecording(file).interactions.length);
      expect((server.source as ReplaySource).divergences).toEqual([]);
      expect(trap.connections).toEqual([]);
    } finally {
      await server.close();
      await trap.close();
    }
  });

  const netnsReason = canRefuseNetwork()
    ? ""
    : "(skipped: unprivileged network namespaces, unshare -rn with ip, are not available here)";
  it.skipIf(netnsReason !== "")(
    `replays inside a network namespace with only loopback ${netnsReason}`,
    () => {
      const input = JSON.stringify({
        vcrDist: resolve(__dirname, "../dist/index.js"),
        claudeBin: CLAUDE_BIN,
        recording: file,
        prompt: PROMPT,
        files: FILES,
      });
      const [unshare, ...args] = networkRefused([
        process.execPath,
        resolve(__dirname, "netns-replay.mjs"),
        input,
      ]);
      const output = execFileSync(unshare!, args, { encoding: "utf8", timeout: 90_000 });
      const report = JSON.parse(output.trim().split("\n").pop()!);
      // The namespace has only loopback: a public address is unreachable.
      expect(report.interfaces).toEqual(["lo"]);
      expect(report.outbound).toBe("ENETUNREACH");
      expect(report.exitCode, report.stderr).toBe(0);
      expect(report.divergences).toBe(0);
      expect(report.served).toBe(report.recorded);
      expect(report.connections).toEqual([]);
      const lines = report.stdout
        .trim()
        .split("\n")
        .map((line: string) => JSON.parse(line));
      const cwd = String(lines.find((line: { subtype?: string }) => line.subtype === "init").cwd);
      expect(trajectory(runFromStreamJson(lines, { prompts: [PROMPT] }), cwd)).toEqual(
        trajectory(recorded.run, cwdOf(recorded)),
      );
    },
    120_000,
  );
});
