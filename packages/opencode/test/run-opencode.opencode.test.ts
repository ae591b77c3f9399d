import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentRunResult,
  RUN_FOLDER_FILES,
  type Run,
  readCapturedEvents,
  runOutcome,
  type ToolCallEvent,
  type ToolResultEvent,
} from "@evals/core";
import { loadStoredRun } from "@evals/evaluators";
import {
  apiError,
  countToolResults,
  firstUserText,
  lastUserText,
  type ModelServer,
  recording,
  replaying,
  reply,
  scripted,
  startModelServer,
  systemText,
  text,
  toolUse,
} from "@evals/vcr";
import { afterEach, describe, expect, it } from "vitest";
import { OPENCODE_REPLAY_REPLACE, runOpenCode, UnknownAgentError } from "../src/index.js";

// The real `opencode` CLI (opencode-ai 1.18.33) against a scripted loopback Anthropic Messages API.
// Runs take 5-25 s on a loaded machine; no assertion is on timing.
const TIMEOUT = 300_000;
const servers: ModelServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "oc-work-"));
  dirs.push(dir);
  const output = mkdtempSync(join(tmpdir(), "oc-out-"));
  dirs.push(output);
  process.env.EVALS_OUTPUT_DIR = output;
  writeFileSync(join(dir, "a.txt"), "alpha\n");
  writeFileSync(join(dir, "b.txt"), "beta\n");
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

/**
 * What `evals grade` reads from the run folder without its result.json (the stream and the
 * manifest alone), and from the bare stream: both as the Run the runner built, without subagents.
 */
async function regraded(result: AgentRunResult) {
  const dir = mkdtempSync(join(tmpdir(), "oc-regrade-"));
  dirs.push(dir);
  const folder = join(dir, result.run_id);
  const output = result.output_dir as string;
  mkdirSync(folder);
  for (const name of [RUN_FOLDER_FILES.stream, RUN_FOLDER_FILES.manifest])
    writeFileSync(join(folder, name), readFileSync(join(output, name)));
  const bare = join(dir, "stdout.jsonl");
  writeFileSync(bare, readFileSync(join(output, RUN_FOLDER_FILES.stream)));
  return { folder: await loadStoredRun(folder), bare: await loadStoredRun(bare) };
}

const shape = (run: Run) =>
  run.events
    .filter((event) => event.agent === "main" && event.type !== "user_message")
    .map((event) => (event.type === "tool_call" ? `${event.type}:${event.name}` : event.type));

async function serve(script: Parameters<typeof scripted>[0]): Promise<ModelServer> {
  const server = await startModelServer({ source: scripted(script) });
  servers.push(server);
  return server;
}

/** Pids of the processes whose working directory is `dir` (Linux). */
function processesIn(dir: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === dir;
      } catch {
        return false;
      }
    })
    .map(Number);
}

const calls = (run: Run) => run.events.filter((event): event is ToolCallEvent => event.type === "tool_call");
const results = (run: Run) =>
  run.events.filter((event): event is ToolResultEvent => event.type === "tool_result");

describe("runOpenCode on the real CLI", () => {
  it(
    "gives the prompt verbatim on stdin, runs glob and grep with rg, uses a custom agent file, and does not wait for the plugin install",
    async () => {
      const helper =
        "---\ndescription: finds files\nmode: primary\n---\nHELPER-AGENT-MARKER: find what is asked.\n";
      const cwd = workspace({ ".opencode/agent/helper.md": helper, "AGENTS.md": "AGENTS-MD-MARKER\n" });
      const prompt = 'find the "txt" files   and   grep alpha';
      const server = await serve((request) =>
        countToolResults(request) === 0
          ? reply(
              text("Searching."),
              toolUse("glob", { pattern: "*.txt" }),
              toolUse("grep", { pattern: "alpha" }),
            )
          : reply(text("Found them.")),
      );
      const result = await runOpenCode({
        prompt,
        cwd,
        baseUrl: server.url,
        agent: "helper",
        timeoutMs: 150_000,
        keepSandbox: "always",
      });
      const sandbox = result.sandbox_dir as string;
      dirs.push(sandbox);
      expect(result.error).toBeUndefined();
      expect(result.exit_code).toBe(0);
      const main = server.interactions.map(
        (interaction) => interaction.request.body as Parameters<typeof firstUserText>[0],
      );
      expect(main.length).toBeGreaterThanOrEqual(2);
      // Verbatim: no quotes added around a prompt with spaces.
      expect(firstUserText(main[0]!)).toBe(prompt);
      // The agent file's body is the system prompt; AGENTS.md of the workspace leaks into it.
      expect(systemText(main[0]!)).toContain("HELPER-AGENT-MARKER");
      expect(systemText(main[0]!)).toContain("AGENTS-MD-MARKER");
      const run = result.run;
      expect(run.agent).toBe("opencode");
      expect(
        calls(run)
          .map((call) => [call.name, call.original_name])
          .sort(),
      ).toEqual([
        ["Glob", "glob"],
        ["Grep", "grep"],
      ]);
      for (const toolResult of results(run)) {
        expect(toolResult.is_error, String(toolResult.output)).toBe(false);
        expect(String(toolResult.output)).toContain("a.txt");
      }
      expect(run.events.at(-1)).toMatchObject({
        type: "final_result",
        is_error: false,
        result: "Found them.",
      });
      // evals grade rebuilds the same run from the folder's stream, and from the bare stream.
      const stored = await regraded(result);
      expect(stored.folder.format).toBe("opencode-json");
      expect(stored.bare.format).toBe("opencode-json");
      expect(shape(stored.folder.run)).toEqual(shape(run));
      expect(shape(stored.bare.run)).toEqual(shape(run));
      expect(stored.folder.run.events[0]).toMatchObject({ type: "user_message", text: prompt });
      expect(runOutcome(stored.bare.run).kind).toBe(runOutcome(result).kind);
      // The background install failed at once (npm offline) instead of retrying: nothing was installed
      // into the workspace, and OpenCode's log says the install failed.
      // (OpenCode wrote a .gitignore there too; the runner deleted it, as nothing else of the run stays.)
      expect(readdirSync(join(cwd, ".opencode")).sort()).toEqual(["agent"]);
      const logDir = join(sandbox, "data", "opencode", "log");
      const log = readdirSync(logDir)
        .map((file) => readFileSync(join(logDir, file), "utf8"))
        .join("\n");
      expect(log).toContain("background dependency install failed");
      expect(log).toMatch(/only-if-cached|offline/);
      // The evaluators that judge Claude Code runs judge this one the same way.
      expect(runOutcome(result).kind).toBe("success");
    },
    TIMEOUT,
  );

  it(
    "captures a subagent's events from OpenCode's database and attributes them to the task call",
    async () => {
      const cwd = workspace();
      const server = await serve((request) => {
        const prompt = firstUserText(request);
        if (prompt.startsWith("SUBTASK")) {
          return countToolResults(request) === 0
            ? reply(toolUse("bash", { command: "echo from-child" }))
            : reply(text("child done"));
        }
        return countToolResults(request) === 0
          ? reply(
              toolUse("task", { description: "child", prompt: "SUBTASK: echo", subagent_type: "general" }),
            )
          : reply(text("parent done"));
      });
      const result = await runOpenCode({ prompt: "delegate", cwd, baseUrl: server.url, timeoutMs: 150_000 });
      expect(result.error).toBeUndefined();
      const run = result.run;
      const child = run.agents.find((agent) => agent.id !== "main");
      expect(child).toMatchObject({ type: "general", parent: "main" });
      const task = calls(run).find((call) => call.agent === "main");
      expect(task).toMatchObject({ name: "Agent", original_name: "task" });
      expect(child?.parent_tool_use_id).toBe(task?.id);
      const childCall = calls(run).find((call) => call.agent === child?.id);
      expect(childCall).toMatchObject({ name: "Bash", input: { command: "echo from-child" } });
      expect(results(run).find((r) => r.id === childCall?.id)?.output).toContain("from-child");
      // The capture plugin wrote @evals/hooks events for both sessions.
      const captured = await readCapturedEvents(join(result.output_dir as string, "events.jsonl"));
      const seen = captured.map((line) => {
        const event = line.event as { hook_event_name: string; tool_name?: string; agent_id?: string };
        return `${event.hook_event_name}:${event.tool_name}:${event.agent_id === child?.id ? "child" : "main"}`;
      });
      expect(seen).toEqual(
        expect.arrayContaining([
          "PreToolUse:Agent:main",
          "PreToolUse:Bash:child",
          "PostToolUse:Bash:child",
          "PostToolUse:Agent:main",
        ]),
      );
      const order = run.events.map((event) => event.type);
      expect(order.indexOf("subagent_start")).toBeLessThan(order.indexOf("subagent_stop"));
    },
    TIMEOUT,
  );

  it(
    "stops a model that keeps calling tools after maxSteps (OpenCode's own steps only warns)",
    async () => {
      const cwd = workspace();
      const server = await serve(() => reply(toolUse("bash", { command: "echo again" })));
      const result = await runOpenCode({
        prompt: "loop",
        cwd,
        baseUrl: server.url,
        maxSteps: 2,
        timeoutMs: 150_000,
      });
      expect(result.timed_out).toBe(false);
      expect(result.error).toMatch(/maximum of 2 steps/);
      expect(runOutcome(result)).toMatchObject({
        kind: "max_turns",
        reason: "the agent stopped at the maximum of 2 turns",
      });
      expect(calls(result.run).filter((call) => call.agent === "main")).toHaveLength(2);
      expect(result.run.events.at(-1)).toMatchObject({
        type: "final_result",
        subtype: "error_max_turns",
        is_error: true,
      });
      // The stream alone shows a run that never finished: it fails too, as one without a result.
      const { bare } = await regraded(result);
      expect(bare.run.events.some((event) => event.type === "final_result")).toBe(false);
      expect(runOutcome(bare.run).kind).not.toBe("success");
    },
    TIMEOUT,
  );

  it(
    'reports an auto-rejected "ask" permission as a denial',
    async () => {
      const cwd = workspace({ "CLAUDE.md": "CLAUDE-MD-MARKER\n" });
      const server = await serve((request) =>
        countToolResults(request) === 0 ? reply(toolUse("bash", { command: "rm b.txt" })) : reply(text("ok")),
      );
      const result = await runOpenCode({
        prompt: "remove b",
        cwd,
        baseUrl: server.url,
        permission: { bash: { "*": "ask" } },
        timeoutMs: 150_000,
      });
      expect(result.exit_code).toBe(0);
      expect(existsSync(join(cwd, "b.txt"))).toBe(true);
      // Without AGENTS.md, the workspace's CLAUDE.md goes into OpenCode's system prompt.
      expect(systemText(server.interactions[0]?.request.body as Parameters<typeof systemText>[0])).toContain(
        "CLAUDE-MD-MARKER",
      );
      // Nothing left behind: the private dirs are gone.
      expect(result.sandbox_dir).toBeUndefined();
      expect(
        readdirSync(tmpdir()).filter((name) => name.startsWith(`evals-opencode-${result.run_id}`)),
      ).toEqual([]);
      const denied = result.run.events.find((event) => event.type === "permission_denied");
      expect(denied).toMatchObject({ tool_name: "Bash" });
      expect(result.run.events.at(-1)).toMatchObject({
        type: "final_result",
        permission_denials: [{ tool_name: "Bash", tool_input: { command: "rm b.txt" } }],
      });
    },
    TIMEOUT,
  );

  it("refuses an agent the run does not define (OpenCode would fall back silently)", async () => {
    const cwd = workspace();
    await expect(runOpenCode({ prompt: "hi", cwd, agent: "nope" })).rejects.toThrow(UnknownAgentError);
    await expect(runOpenCode({ prompt: "hi", cwd, agent: "nope" })).rejects.toThrow(/unknown agent "nope"/);
    const subagent = "---\ndescription: helps\nmode: subagent\n---\nHelp.\n";
    await expect(
      runOpenCode({ prompt: "hi", cwd, agent: "helper", agents: { helper: subagent } }),
    ).rejects.toThrow(/mode: subagent/);
  });

  it(
    "reports it when OpenCode falls back from an agent the run named (here: disabled in the config)",
    async () => {
      const cwd = workspace();
      const server = await serve(() => reply(text("hello")));
      const result = await runOpenCode({
        prompt: "hi",
        cwd,
        baseUrl: server.url,
        agent: "plan",
        config: { agent: { plan: { disable: true } } },
        timeoutMs: 150_000,
      });
      expect(result.exit_code).toBe(0);
      expect(result.error).toMatch(/did not know the agent "plan"/);
    },
    TIMEOUT,
  );

  it(
    "runs the opencode installed in the agent's cwd, not the one the test process's cwd would find first",
    async () => {
      // The run's workspace has its own node_modules/.bin/opencode (a link to the real one); the
      // test process runs in this package, whose parents hold the monorepo's opencode.
      const cwd = workspace();
      mkdirSync(join(cwd, "node_modules", ".bin"), { recursive: true });
      const own = join(cwd, "node_modules", ".bin", "opencode");
      symlinkSync(join(import.meta.dirname, "../../../node_modules/.bin/opencode"), own);
      const server = await serve(() => reply(text("hello")));
      const result = await runOpenCode({ prompt: "hi", cwd, baseUrl: server.url, timeoutMs: 150_000 });
      expect(result.exit_code, result.stderr).toBe(0);
      expect(result.command[0]).toBe(own);
    },
    TIMEOUT,
  );

  it(
    "stops a run whose model answers 500 (OpenCode would retry it for ~76 s) as an API error",
    async () => {
      const cwd = workspace();
      const server = await serve(() => apiError(500, "overloaded for the test", "api_error"));
      const result = await runOpenCode({ prompt: "hi", cwd, baseUrl: server.url, timeoutMs: 120_000 });
      expect(result.timed_out).toBe(false);
      expect(result.error).toMatch(/retrying a failed model call/);
      expect(runOutcome(result).kind).toBe("api_error");
      expect(server.interactions.length).toBeGreaterThanOrEqual(1);
      expect(server.interactions.every((interaction) => interaction.response?.status === 500)).toBe(true);
      expect(result.run.events.at(-1)).toMatchObject({
        type: "final_result",
        is_error: true,
        terminal_reason: "api_error",
      });
    },
    TIMEOUT,
  );

  it(
    "runs several prompts as turns of one session, with CLAUDE.md kept out of the system prompt",
    async () => {
      const cwd = workspace({ "CLAUDE.md": "CLAUDE-MD-MARKER\n" });
      const server = await serve((request) => reply(text(`echo: ${lastUserText(request)}`)));
      const result = await runOpenCode({
        prompt: ["first turn", "second turn"],
        cwd,
        baseUrl: server.url,
        ignoreClaudeMd: true,
        timeoutMs: 150_000,
      });
      expect(result.error).toBeUndefined();
      const last = server.interactions.at(-1)?.request.body as Parameters<typeof firstUserText>[0];
      // The second call carries the first exchange: the same session went on.
      expect(firstUserText(last)).toBe("first turn");
      expect(lastUserText(last)).toBe("second turn");
      const texts = result.run.events.flatMap((event) =>
        event.type === "assistant_text" ? [event.text] : [],
      );
      expect(texts).toEqual(["echo: first turn", "echo: second turn"]);
      expect(systemText(last)).not.toContain("CLAUDE-MD-MARKER");
      expect(result.run.events.filter((event) => event.type === "user_message")).toHaveLength(2);
    },
    TIMEOUT,
  );

  it(
    "kills the whole process tree when the run times out",
    async () => {
      const cwd = workspace();
      const server = await serve(() => reply(toolUse("bash", { command: "sleep 600" })));
      // OpenCode and the shell it started work in the workspace: seen while the run goes on.
      const seen = new Set<number>();
      const poll = setInterval(() => {
        for (const pid of processesIn(cwd)) seen.add(pid);
      }, 300);
      const result = await runOpenCode({
        prompt: "wait",
        cwd,
        baseUrl: server.url,
        // Long enough for OpenCode to start the shell on a loaded machine.
        timeoutMs: 45_000,
        killGraceMs: 500,
      });
      clearInterval(poll);
      expect(seen.size).toBeGreaterThan(1);
      expect(result.timed_out).toBe(true);
      expect(result.error).toMatch(/timed out after 45000 ms/);
      expect(runOutcome(result).kind).toBe("timeout");
      expect(result.run.events.some((event) => event.type === "final_result")).toBe(false);
      // No process of the run is left: none works in its folder.
      expect(processesIn(cwd)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "records a run on the wire and replays it offline with the real CLI",
    async () => {
      const first = workspace();
      const live = await serve((request) =>
        countToolResults(request) === 0
          ? reply(text("Reading."), toolUse("read", { filePath: "a.txt" }))
          : reply(text("It says alpha.")),
      );
      // Recorded through @evals/vcr's recording proxy, in front of the scripted model, to a file.
      const file = join(first, "..", `${first.split("/").pop()}.recording.json`);
      dirs.push(file);
      const recorder = await startModelServer({ source: recording({ upstream: live.url, file }) });
      const recorded = await runOpenCode({
        prompt: "read a.txt",
        cwd: first,
        baseUrl: recorder.url,
        timeoutMs: 150_000,
      });
      await recorder.close();
      expect(recorded.error).toBeUndefined();
      expect(existsSync(file)).toBe(true);
      const second = workspace();
      const cwdPattern: [RegExp, string] = [/\/tmp\/oc-work-[A-Za-z0-9]+/g, "<cwd>"];
      const replay = replaying(file, { replace: [...OPENCODE_REPLAY_REPLACE, cwdPattern] });
      const server = await startModelServer({ source: replay });
      servers.push(server);
      const replayed = await runOpenCode({
        prompt: "read a.txt",
        cwd: second,
        baseUrl: server.url,
        timeoutMs: 150_000,
      });
      expect(replay.divergences).toEqual([]);
      expect(replay.unplayed()).toEqual([]);
      expect(replayed.error).toBeUndefined();
      const summary = (run: Run) => calls(run).map((call) => call.name);
      expect(summary(replayed.run)).toEqual(["Read"]);
      expect(summary(replayed.run)).toEqual(summary(recorded.run));
      expect(results(replayed.run)[0]).toMatchObject({
        is_error: false,
        output: expect.stringContaining(join(second, "a.txt")),
      });
      expect(replayed.run.events.at(-1)).toMatchObject({ type: "final_result", result: "It says alpha." });
    },
    TIMEOUT,
  );
});
