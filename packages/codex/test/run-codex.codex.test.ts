import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  finalResult,
  type Run,
  readRunFolder,
  runOutcome,
  type ToolCallEvent,
  type ToolResultEvent,
} from "@evals/core";
import { loadStoredRun } from "@evals/evaluators";
import {
  addFile,
  applyPatch,
  deleteFile,
  execCommand,
  lastToolOutput,
  type ModelServer,
  response,
  responsesError,
  scriptedResponses,
  stall,
  startModelServer,
  toolOutputs,
  updateFile,
  userPrompt,
} from "@evals/vcr";
import { afterEach, describe, expect, it } from "vitest";
import { codexRunner, type RunCodexResult, runCodex, runFromCodexJsonl } from "../src/index.js";

// The real `codex` CLI (@openai/codex 0.169.0) against a scripted loopback OpenAI Responses API.
const TIMEOUT = 180_000;
const servers: ModelServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

async function serve(script: Parameters<typeof scriptedResponses>[0]): Promise<ModelServer> {
  const server = await startModelServer({ source: scriptedResponses(script) });
  servers.push(server);
  return server;
}

function calls(run: Run): ToolCallEvent[] {
  return run.events.filter((event): event is ToolCallEvent => event.type === "tool_call");
}

function resultOf(run: Run, id: string): ToolResultEvent | undefined {
  return run.events.find(
    (event): event is ToolResultEvent => event.type === "tool_result" && event.id === id,
  );
}

describe("runCodex on the real CLI", () => {
  it(
    "normalizes shell commands and a patch's add, update and delete into Bash, Write, Edit and apply_patch",
    async () => {
      const cwd = folder("codex-work-");
      writeFileSync(join(cwd, "notes.txt"), "alpha\nbeta\n");
      writeFileSync(join(cwd, "old.txt"), "old\n");
      const server = await serve((request, context) => {
        if (context.call === 0) return response("Looking around.", execCommand("cat notes.txt"));
        if (context.call === 1) return response(execCommand("cat missing.txt"));
        if (context.call === 2)
          return response(
            applyPatch(addFile("summary.md", "# Summary\nalpha\n"), updateFile("notes.txt", "beta", "gamma")),
          );
        if (context.call === 3) return response(applyPatch(deleteFile("old.txt")));
        return response(`Done after ${toolOutputs(request).length} tool outputs.`);
      });
      const result = await runCodex(
        { prompt: "Summarize notes.txt", cwd, baseUrl: server.url, outputRoot: folder("codex-out-") },
        {},
      );
      expect(result.error, result.stderr).toBeUndefined();
      expect(result.exit_code).toBe(0);
      const run = result.run;
      expect(run.agent).toBe("codex");
      expect(run.agent_version).toBe("0.169.0");
      expect(calls(run).map((call) => call.name)).toEqual(["Bash", "Bash", "Write", "Edit", "apply_patch"]);
      const [cat, missing, write, edit, remove] = calls(run);
      expect(cat!.input).toEqual({ command: "cat notes.txt" });
      expect(cat!.original_name).toBe("exec_command");
      expect(cat!.id).toMatch(/^call_vcr_/);
      expect(resultOf(run, cat!.id)).toMatchObject({ output: "alpha\nbeta\n", is_error: false });
      expect(resultOf(run, missing!.id)).toMatchObject({ is_error: true, error: "exit code 1" });
      expect(write!.input).toEqual({ file_path: join(cwd, "summary.md"), content: "# Summary\nalpha\n" });
      expect(edit!.input).toEqual({
        file_path: join(cwd, "notes.txt"),
        old_string: "beta",
        new_string: "gamma",
      });
      expect(edit!.original_name).toBe("apply_patch");
      expect(remove!.input).toEqual({ file_path: join(cwd, "old.txt"), delete: true });
      expect(resultOf(run, write!.id)?.is_error).toBe(false);
      expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("alpha\ngamma\n");
      expect(existsSync(join(cwd, "old.txt"))).toBe(false);
      const final = finalResult(run)!;
      expect(final).toMatchObject({
        subtype: "success",
        is_error: false,
        num_turns: 5,
        terminal_reason: "completed",
      });
      expect(final.result).toBe("Done after 4 tool outputs.");
      expect(final.usage?.input_tokens).toBeGreaterThan(0);
      // The run folder holds the stream; a bare .jsonl gives the same tools (a patch's files in the
      // stream's order, which is not the patch's).
      const stored = readFileSync(join(result.output_dir!, "stream.jsonl"), "utf8");
      const fromJsonl = calls(runFromCodexJsonl(stored));
      expect(fromJsonl.map((call) => call.name).sort()).toEqual([
        "Bash",
        "Bash",
        "Edit",
        "Write",
        "apply_patch",
      ]);
      expect(fromJsonl[0]!.input).toEqual({ command: "cat notes.txt" });
      expect((await readRunFolder(result.output_dir!)).run.events.length).toBe(run.events.length);
    },
    TIMEOUT,
  );

  it(
    "gives the agent's commands a temp folder of their own and mounts nothing over /tmp/.git, which would make /tmp a git root for every other agent on the machine",
    async () => {
      const cwd = folder("codex-work-");
      const server = await serve((request, context) => {
        // Inside the sandbox: the mounts at /tmp/.git, and a temp file made where TMPDIR says.
        if (context.call === 0)
          return response(execCommand(`awk '$5 == "/tmp/.git"' /proc/self/mountinfo | wc -l; mktemp`));
        return response(`Saw: ${lastToolOutput(request)?.text}`);
      });
      const result = await runCodex(
        { prompt: "Make a temp file", cwd, baseUrl: server.url, outputRoot: folder("codex-out-") },
        {},
      );
      expect(result.error, result.stderr).toBeUndefined();
      const [command] = calls(result.run);
      const [mounts, tempFile] = String(resultOf(result.run, command!.id)?.output).trim().split("\n");
      expect(mounts).toBe("0");
      expect(tempFile).toMatch(/\/codex-home\/tmp\/tmp\.\w+$/);
    },
    TIMEOUT,
  );

  it(
    "recovers a patch the read-only sandbox rejected, which the --json stream does not show",
    async () => {
      const cwd = folder("codex-work-");
      const server = await serve((request, context) => {
        if (context.call === 0) return response(applyPatch(addFile("x.md", "x\n")));
        return response(`Saw: ${lastToolOutput(request)?.text.slice(0, 60)}`);
      });
      const result = await runCodex(
        { prompt: "Write x.md", cwd, baseUrl: server.url, outputRoot: folder("codex-out-") },
        { sandbox: "read-only" },
      );
      const [write] = calls(result.run);
      expect(write).toMatchObject({ name: "Write", input: { file_path: join(cwd, "x.md"), content: "x\n" } });
      expect(resultOf(result.run, write!.id)).toMatchObject({ is_error: true });
      expect(resultOf(result.run, write!.id)?.error).toMatch(/rejected/);
      expect(result.run.events.some((event) => event.type === "permission_denied")).toBe(true);
      expect(existsSync(join(cwd, "x.md"))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    "recovers a command a PreToolUse hook denied, which the --json stream does not show",
    async () => {
      const cwd = folder("codex-work-");
      writeFileSync(join(cwd, "keep.txt"), "keep\n");
      const deny = JSON.stringify({
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "no deleting",
        },
      });
      const server = await serve((request, context) => {
        if (context.call === 0) return response(execCommand("rm keep.txt"));
        return response(`Hook said: ${lastToolOutput(request)?.text}`);
      });
      const result = await runCodex(
        { prompt: "Delete keep.txt", cwd, baseUrl: server.url, outputRoot: folder("codex-out-") },
        {
          hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: `echo '${deny}'` }] }] },
        },
      );
      const [rm] = calls(result.run);
      expect(rm).toMatchObject({ name: "Bash", input: { command: "rm keep.txt" } });
      expect(resultOf(result.run, rm!.id)).toMatchObject({ is_error: true });
      expect(resultOf(result.run, rm!.id)?.error).toMatch(/blocked by PreToolUse hook: no deleting/);
      expect(existsSync(join(cwd, "keep.txt"))).toBe(true);
      expect(finalResult(result.run)?.permission_denials).toHaveLength(1);
      expect(result.run.notes.map((note) => note.message).join("\n")).toMatch(/not in the --json stream/);
    },
    TIMEOUT,
  );

  it(
    "continues the thread with a second prompt (codex exec resume), in the same sandbox",
    async () => {
      const cwd = folder("codex-work-");
      const server = await serve((request) => {
        const prompt = userPrompt(request);
        const answered = toolOutputs(request).length;
        if (prompt === "Write one.txt" && answered === 0)
          return response(applyPatch(addFile("one.txt", "1\n")));
        if (prompt === "Now write two.txt" && answered === 1)
          return response(applyPatch(addFile("two.txt", "2\n")));
        return response(`Done with: ${prompt}`);
      });
      const result = await runCodex(
        {
          prompt: ["Write one.txt", "Now write two.txt"],
          cwd,
          baseUrl: server.url,
          outputRoot: folder("codex-out-"),
        },
        {},
      );
      expect(result.error, result.stderr).toBeUndefined();
      expect(result.command).toContain("resume");
      const texts = result.run.events
        .filter((event) => event.type === "user_message")
        .map((event) => event.text);
      expect(texts).toEqual(["Write one.txt", "Now write two.txt"]);
      expect(calls(result.run).map((call) => [call.name, call.input.file_path])).toEqual([
        ["Write", join(cwd, "one.txt")],
        ["Write", join(cwd, "two.txt")],
      ]);
      expect(readFileSync(join(cwd, "two.txt"), "utf8")).toBe("2\n");
    },
    TIMEOUT,
  );

  it(
    "reports an HTTP 500 with no retries as a failed run with the API error",
    async () => {
      const server = await serve(() => responsesError(500, "the scripted model is down"));
      const result = await codexRunner.run(
        {
          prompt: "Hello",
          cwd: folder("codex-work-"),
          baseUrl: server.url,
          outputRoot: folder("codex-out-"),
        },
        {},
      );
      expect(server.interactions).toHaveLength(1);
      expect(result.exit_code).toBe(1);
      expect(finalResult(result.run)).toMatchObject({
        is_error: true,
        subtype: "error_during_execution",
        terminal_reason: "api_error",
        api_error_status: 500,
      });
      expect(finalResult(result.run)?.errors?.[0]).toBeTruthy();
      // Graded again from its run folder, and from the bare .jsonl of codex exec --json: an API error.
      const stored = await loadStoredRun(result.output_dir!);
      expect(runOutcome(stored.run)).toMatchObject({ kind: "api_error" });
      expect(runOutcome(stored.run).reason).toMatch(/HTTP 500/);
      const jsonl = readFileSync(join(result.output_dir!, "stream.jsonl"), "utf8");
      expect(runOutcome(runFromCodexJsonl(jsonl)).kind).toBe("api_error");
    },
    TIMEOUT,
  );

  it(
    "reports retries exhausted when Codex reconnected before giving up",
    async () => {
      const server = await serve(() => responsesError(500, "still down"));
      const result = await runCodex(
        {
          prompt: "Hello",
          cwd: folder("codex-work-"),
          baseUrl: server.url,
          outputRoot: folder("codex-out-"),
        },
        { streamMaxRetries: 1 },
      );
      expect(server.interactions).toHaveLength(2);
      expect(finalResult(result.run)).toMatchObject({
        is_error: true,
        terminal_reason: "api_error",
        api_error_status: 500,
      });
      expect(finalResult(result.run)?.errors?.[0]).toMatch(/after 1 reconnects: retries exhausted/);
    },
    TIMEOUT,
  );

  it(
    "runs a prompt too long for one command-line argument (300 KB: spawn E2BIG before), the model gets it whole",
    async () => {
      // Past 128 KiB, one argv string is refused by the kernel (MAX_ARG_STRLEN).
      const prompt = `Summarise this log.\n${"line of a very long log ✓\n".repeat(12_000)}end of the log`;
      const seen: string[] = [];
      const server = await serve((request) => {
        seen.push(userPrompt(request));
        return response("Summarised.");
      });
      const result = await runCodex(
        { prompt, cwd: folder("codex-work-"), baseUrl: server.url, outputRoot: folder("codex-out-") },
        {},
      );
      expect(result.error).toBeUndefined();
      expect(seen).toEqual([prompt]);
      expect(result.run.events.find((event) => event.type === "user_message")).toMatchObject({
        text: prompt,
      });
      expect(finalResult(result.run)).toMatchObject({ is_error: false, result: "Summarised." });
    },
    TIMEOUT,
  );

  it(
    "reports a model server that is not there by its own address, not the runner's tap's",
    async () => {
      const gone = await serve(() => response("never"));
      const baseUrl = gone.url;
      await gone.close();
      const result = await runCodex(
        { prompt: "Hello", cwd: folder("codex-work-"), baseUrl, outputRoot: folder("codex-out-") },
        {},
      );
      expect(result.error).toContain(`the model server ${baseUrl} cannot be reached (ECONNREFUSED)`);
      expect(finalResult(result.run)).toMatchObject({ is_error: true, terminal_reason: "api_error" });
    },
    TIMEOUT,
  );

  it(
    "kills a run that outlives its timeout and reports it timed out",
    async () => {
      const server = await serve((_request, context) => stall(context));
      const started = Date.now();
      const result = await runCodex(
        {
          prompt: "Hello",
          cwd: folder("codex-work-"),
          baseUrl: server.url,
          timeoutMs: 3000,
          outputRoot: folder("codex-out-"),
        },
        {},
      );
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(result.timed_out).toBe(true);
      expect(result.error).toMatch(/timed out after 3000 ms/);
      expect(finalResult(result.run)).toBeUndefined();
    },
    TIMEOUT,
  );

  it(
    "enforces maxTurns itself and reports the turn limit",
    async () => {
      const server = await serve((_request, context) => response(execCommand(`echo step ${context.call}`)));
      const result = await codexRunner.run(
        {
          prompt: "Loop forever",
          cwd: folder("codex-work-"),
          baseUrl: server.url,
          maxTurns: 2,
          outputRoot: folder("codex-out-"),
        },
        {},
      );
      expect(server.interactions).toHaveLength(2);
      expect(calls(result.run).map((call) => call.input.command)).toEqual(["echo step 0", "echo step 1"]);
      expect(finalResult(result.run)).toMatchObject({
        is_error: true,
        subtype: "error_max_turns",
        terminal_reason: "max_turns",
        errors: ["Reached maximum number of turns (2)"],
      });
      expect((result as RunCodexResult).error).toMatch(/maximum of 2 turns/);
      const stored = await loadStoredRun(result.output_dir!);
      expect(runOutcome(stored.run)).toMatchObject({ kind: "max_turns" });
      expect(runOutcome(stored.run).reason).toMatch(/maximum of 2 turns/);
    },
    TIMEOUT,
  );

  it("refuses options Codex cannot honour, naming them", async () => {
    await expect(
      codexRunner.run({ prompt: "x", baseUrl: "http://127.0.0.1:1", tools: ["Bash"] }, {}),
    ).rejects.toThrow(/Codex has no tool list \(agent.tools\)/);
    await expect(
      codexRunner.run({ prompt: "x", baseUrl: "http://127.0.0.1:1" }, { sandbox: "open" } as never),
    ).rejects.toThrow(/codex options \(field sandbox\)/);
    await expect(codexRunner.run({ prompt: "x" }, {})).rejects.toThrow(/baseUrl is required/);
  });
});
