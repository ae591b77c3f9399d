import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { finalResult, listToolCalls, readRunFolder, toolSequence } from "@evals/core";
import { isAlive, listProcesses, runProcesses } from "@evals/core/process";
import { EVENTS_FILE, readEvents } from "@evals/hooks";
import { startInterruptedRun } from "@evals/test-kit/interrupted-run";
import { delegate, listThenRead, neverDone, withModel } from "@evals/test-kit/models";
import { countToolResults, reply, text, toolUse } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClaudeNotFoundError, runAgent, skipIfNoClaude } from "../src/index.js";

/** The real claude CLI installed at the workspace root (2.1.330). */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");

let root: string;
let project: string;
let outputRoot: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "harness-live-"));
  project = join(root, "project");
  outputRoot = join(root, "out");
  mkdirSync(project);
  writeFileSync(join(project, "a.txt"), "hello from a\n");
  writeFileSync(join(project, "b.txt"), "b\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("runAgent with the real claude CLI and a scripted loopback model", () => {
  it("runs the tool calls and returns the normalized run, its files and nothing left behind", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    process.env.EVALS_HARNESS_TEST_SECRET = "must-not-leak";
    const result = await withModel(listThenRead(project), (server) =>
      runAgent({
        prompt: "list and read",
        claudeBin,
        baseUrl: server.url,
        cwd: project,
        outputRoot,
        timeoutMs: 60_000,
      }),
    );
    delete process.env.EVALS_HARNESS_TEST_SECRET;
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.exit_code).toBe(0);
    expect(result.timed_out).toBe(false);
    expect(result.origin).toBe("live");
    expect(toolSequence(result.run)).toEqual(["Bash", "Read"]);
    const [bash, read] = listToolCalls(result.run);
    expect(bash?.status).toBe("ok");
    expect(JSON.stringify(bash?.result?.output)).toContain("a.txt");
    expect(JSON.stringify(read?.result?.output)).toContain("hello from a");
    expect(result.run.events[0]).toMatchObject({ type: "user_message", text: "list and read" });
    const final = finalResult(result.run);
    expect(final).toMatchObject({
      subtype: "success",
      is_error: false,
      result: "Done: 1\thello from a\n2\t",
    });
    expect(final?.total_cost_usd).toBeGreaterThan(0);
    expect(result.run.cwd).toBe(project);
    expect(result.run.claude_version).toBe("2.1.330");
    // The hooks capture only what neither the stream nor the session transcript carries (subagents,
    // permission requests): here nothing fires; the prompt comes from the transcript too, and no
    // note says the hooks missed the calls.
    expect(result.command).toContain("--include-hook-events");
    expect(result.run.sources).toEqual(["stream", "hooks"]);
    expect(result.run.events[0]?.sources).toEqual(["stream", "hooks"]);
    for (const event of result.run.events.filter((event) => event.type.startsWith("tool_"))) {
      expect(event.sources, `${event.type} ${event.index}`).toEqual(["stream"]);
    }
    expect(result.run.notes).toEqual([]);
    expect(existsSync(join(result.output_dir!, EVENTS_FILE))).toBe(false);

    expect(result.output_dir).toBe(join(outputRoot, "test-output", result.run_id));
    const stored = JSON.parse(readFileSync(join(result.output_dir!, "result.json"), "utf8"));
    expect(stored.run.events).toHaveLength(result.run.events.length);
    expect(readFileSync(join(result.output_dir!, "stream.jsonl"), "utf8")).toContain('"type":"result"');
    // The seeds' helpers read the stored, reconciled run back by its id.
    expect(toolSequence((await readRunFolder(result.output_dir!)).run)).toEqual(["Bash", "Read"]);
    // The private config/home/tmp of a successful run is removed (in the background).
    expect(result.sandbox_dir).toBeUndefined();
    const sandboxes = () =>
      readdirSync(tmpdir()).filter((name) => name.startsWith(`evals-${result.run_id}-`));
    for (let i = 0; i < 100 && sandboxes().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(sandboxes()).toEqual([]);
    const { setup_ms, cli_ms, finish_ms } = result.timings!;
    expect(Math.abs(setup_ms + cli_ms + finish_ms - result.duration_ms)).toBeLessThan(5);
    expect(isAlive(result.pid!)).toBe(false);
  });

  it("isolates the run: its own HOME, config dir, TMPDIR and run id, and none of the caller's env", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    process.env.EVALS_HARNESS_TEST_SECRET = "must-not-leak";
    const command = "env";
    const result = await withModel(
      (request) =>
        countToolResults(request) === 0
          ? reply(toolUse("Bash", { command, description: "show env" }))
          : reply(text("ok")),
      (server) =>
        runAgent({
          prompt: "show env",
          claudeBin,
          baseUrl: server.url,
          cwd: project,
          outputRoot,
          runId: "isolation-check",
          keepSandbox: "always",
          allowedTools: ["Bash(env)"],
          model: "claude-evals-test-model",
          appendSystemPrompt: "EVALS-APPENDED-PROMPT",
          sessionId: "0f0e0d0c-1111-4222-8333-444455556666",
        }).then((result) => ({ result, requests: server.interactions.map((i) => i.request.body) })),
    ).then(({ result, requests }) => {
      // The flags reached the CLI: the model it asked for, the system prompt, the session.
      expect(requests[0]).toMatchObject({ model: "claude-evals-test-model" });
      expect(JSON.stringify(requests[0]?.system)).toContain("EVALS-APPENDED-PROMPT");
      expect(result.run.session_id).toBe("0f0e0d0c-1111-4222-8333-444455556666");
      return result;
    });
    delete process.env.EVALS_HARNESS_TEST_SECRET;
    const output = String(listToolCalls(result.run)[0]?.result?.output);
    const env = new Map(
      output.split("\n").map((line) => [line.split("=")[0], line.slice(line.indexOf("=") + 1)]),
    );
    const sandbox = result.sandbox_dir!;
    expect(sandbox).toBeDefined();
    expect(env.get("HOME")).toBe(join(sandbox, "home"));
    expect(env.get("CLAUDE_CONFIG_DIR")).toBe(join(sandbox, "claude-config"));
    expect(env.get("TMPDIR")).toBe(join(sandbox, "tmp"));
    expect(env.get("TEST_RUN_ID")).toBe("isolation-check");
    expect(env.get("TEST_MODE")).toBe("true");
    expect(env.get("FORCE_COLOR")).toBe("0");
    expect(env.get("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC")).toBe("1");
    expect(env.has("EVALS_HARNESS_TEST_SECRET")).toBe(false);
    // The CLI wrote its transcript into the private config dir, not the user's.
    expect(readdirSync(join(sandbox, "claude-config", "projects")).length).toBeGreaterThan(0);
    rmSync(sandbox, { recursive: true, force: true });
  });

  it("times out on a model that never answers, and leaves no process behind", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started = Date.now();
    const result = await withModel(
      async () => {
        await gate;
        return reply(text("too late"));
      },
      async (server) => {
        try {
          return await runAgent({
            prompt: "hang",
            claudeBin,
            baseUrl: server.url,
            cwd: project,
            outputRoot,
            timeoutMs: 3000,
            killGraceMs: 500,
          });
        } finally {
          release();
        }
      },
    );
    expect(result.timed_out).toBe(true);
    expect(result.error).toBe("the run timed out after 3000 ms and was killed");
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(finalResult(result.run)).toBeUndefined();
    // Neither the CLI nor anything in its process group is left.
    expect(isAlive(result.pid!)).toBe(false);
    expect(listProcesses().filter((proc) => proc.pgid === result.pid)).toEqual([]);
    expect(runProcesses(result.pid)).toEqual([]);
    // The failed run's sandbox is kept for inspection.
    expect(result.sandbox_dir && existsSync(result.sandbox_dir)).toBe(true);
    rmSync(result.sandbox_dir!, { recursive: true, force: true });
  });

  it("kills a Bash command running in a session of its own when the run is stopped", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const token = `evals-stop-${Date.now()}`;
    const running = () =>
      listProcesses().filter((proc) => {
        try {
          return readFileSync(`/proc/${proc.pid}/cmdline`, "utf8").includes(token);
        } catch {
          return false;
        }
      });
    const stop = new AbortController();
    const result = await withModel(
      (request) =>
        countToolResults(request) === 0
          ? reply(
              toolUse("Bash", {
                command: `node -e "setInterval(()=>{},1000)" ${token}`,
                description: "wait",
              }),
            )
          : reply(text("done")),
      async (server) => {
        const run = runAgent({
          prompt: "wait",
          claudeBin,
          baseUrl: server.url,
          cwd: project,
          outputRoot,
          allowedTools: ["Bash"],
          signal: stop.signal,
          killGraceMs: 500,
        });
        // Stop the run once the command is running (in the Bash tool's own session).
        const deadline = Date.now() + 60_000;
        while (running().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        const command = running()[0];
        expect(command, "the Bash command never started").toBeDefined();
        stop.abort();
        return run;
      },
    );
    expect(result.error).toBe("the run was aborted and killed");
    expect(toolSequence(result.run)).toEqual(["Bash"]);
    expect(running()).toEqual([]);
    expect(isAlive(result.pid!)).toBe(false);
    rmSync(result.sandbox_dir!, { recursive: true, force: true });
  });

  it("takes the run's processes down with it when the test process is killed mid-run", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    let sandbox: string | undefined;
    const parent = await startInterruptedRun({
      runAgentModule: new URL("../dist/index.js", import.meta.url).href,
      claudeBin,
      cwd: project,
      outputRoot,
    });
    try {
      // The parent's children: the CLI, and the watchdog that would outlive a SIGKILL of the parent.
      const cliPids = listProcesses()
        .filter((proc) => proc.ppid === parent.pid)
        .map((proc) => proc.pid)
        .filter((pid) => !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("watchdog.cjs"));
      expect(cliPids).toHaveLength(1);
      // An interrupted run's sandbox is deleted with it (no result names it).
      const environ = readFileSync(`/proc/${cliPids[0]}/environ`, "utf8").split("\0");
      sandbox = dirname(environ.find((entry) => entry.startsWith("HOME="))!.slice("HOME=".length));
      parent.kill("SIGTERM");
      await new Promise((resolve) => parent.once("exit", resolve));
      const deadline = Date.now() + 5000;
      while (isAlive(cliPids[0]!) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(isAlive(cliPids[0]!)).toBe(false);
      expect(listProcesses().filter((proc) => proc.pgid === cliPids[0])).toEqual([]);
      expect(existsSync(sandbox)).toBe(false);
    } finally {
      parent.kill("SIGKILL");
      if (sandbox) rmSync(sandbox, { recursive: true, force: true });
    }
  });

  it("builds the run from the stream alone when capture is off", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const result = await withModel(listThenRead(project), (server) =>
      runAgent({
        prompt: "list and read",
        claudeBin,
        baseUrl: server.url,
        cwd: project,
        outputRoot,
        capture: false,
      }),
    );
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.run.sources).toEqual(["stream"]);
    expect(toolSequence(result.run)).toEqual(["Bash", "Read"]);
    expect(existsSync(join(result.output_dir!, "events.jsonl"))).toBe(false);
  });

  it("stops at max turns with the CLI's error_max_turns result", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const result = await withModel(neverDone, (server) =>
      runAgent({ prompt: "loop", claudeBin, baseUrl: server.url, cwd: project, outputRoot, maxTurns: 2 }),
    );
    expect(finalResult(result.run)).toMatchObject({ subtype: "error_max_turns", is_error: true });
    expect(result.exit_code).toBe(1);
    expect(result.error).toBe("the agent stopped at the maximum of 2 turns");
    expect(toolSequence(result.run)).toEqual(["Bash", "Bash"]);
    expect(result.sandbox_dir && existsSync(result.sandbox_dir)).toBe(true);
    rmSync(result.sandbox_dir!, { recursive: true, force: true });
  });

  it("attributes a subagent's tool calls to the subagent", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const result = await withModel(delegate, (server) =>
      runAgent({ prompt: "delegate", claudeBin, baseUrl: server.url, cwd: project, outputRoot }),
    );
    expect(result.error, result.stderr).toBeUndefined();
    expect(toolSequence(result.run)).toEqual(["Agent", "Bash"]);
    const child = result.run.agents.find((agent) => agent.id !== "main")!;
    expect(child).toMatchObject({ type: "general-purpose", parent: "main" });
    const agentCall = listToolCalls(result.run, { agent: "main" })[0]!;
    expect(child.parent_tool_use_id).toBe(agentCall.id);
    expect(
      listToolCalls(result.run, { agent: child.id }).map((call) => [call.name, call.input.command]),
    ).toEqual([["Bash", "echo from-child"]]);
    expect(finalResult(result.run)?.result).toBe("parent done");
    // The hooks saw the delegation (the Agent call, the subagent's start and stop), not the child's Bash.
    const captured = await readEvents(result.output_dir!);
    expect(captured.map((line) => line.event.hook_event_name)).toEqual([
      "PreToolUse",
      "SubagentStart",
      "SubagentStop",
      "PostToolUse",
    ]);
    for (const event of result.run.events.filter((event) => event.type.startsWith("subagent_"))) {
      expect(event.sources, event.type).toEqual(["stream", "hooks"]);
    }
    expect(result.run.notes).toEqual([]);
  });

  it("holds a multi-turn conversation, one user turn per prompt, in order", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const result = await withModel(
      (request) => {
        const users = request.messages.filter(
          (message) => message.role === "user" && JSON.stringify(message.content).includes("turn-"),
        );
        return reply(text(`answer ${users.length}`));
      },
      (server) =>
        runAgent({
          prompt: ["turn-one", "turn-two", "turn-three"],
          claudeBin,
          baseUrl: server.url,
          cwd: project,
          outputRoot,
        }),
    );
    expect(result.error, result.stderr).toBeUndefined();
    const story = result.run.events
      .filter((event) => event.type === "user_message" || event.type === "assistant_text")
      .map((event) => ("text" in event ? event.text : ""));
    expect(story).toEqual(["turn-one", "answer 1", "turn-two", "answer 2", "turn-three", "answer 3"]);
    expect(result.run.events.filter((event) => event.type === "final_result")).toHaveLength(3);
  });

  it("runs the claude installed in the agent's cwd, not the one the test process's cwd would find first", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    // The run's workspace has its own node_modules/.bin/claude (a link to the real one); the test
    // process runs in this package, whose parents hold the monorepo's claude.
    const cwd = join(root, "own-bin");
    mkdirSync(join(cwd, "node_modules", ".bin"), { recursive: true });
    const own = join(cwd, "node_modules", ".bin", "claude");
    symlinkSync(claudeBin, own);
    const result = await withModel(listThenRead(project), (server) =>
      runAgent({ prompt: "list and read", baseUrl: server.url, cwd, outputRoot, capture: false }),
    );
    expect(result.error, result.stderr).toBeUndefined();
    expect(result.command[0]).toBe(own);
  });

  it("fails to start with an install hint when the claude executable is missing", async () => {
    const missing = join(root, "no-such-claude");
    await expect(runAgent({ prompt: "hi", claudeBin: missing, outputRoot })).rejects.toThrow(
      ClaudeNotFoundError,
    );
    await expect(runAgent({ prompt: "hi", claudeBin: missing, outputRoot })).rejects.toThrow(
      /npm install -D @anthropic-ai\/claude-code@2\.1\.330/,
    );
  });
});
