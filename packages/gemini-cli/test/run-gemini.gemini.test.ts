import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { finalResult, listToolCalls } from "@evals/core";
import { closedLoopbackPort, withGeminiModel } from "@evals/test-kit/models";
import {
  countFunctionResponses,
  geminiFunctionCall,
  geminiPrompt,
  geminiReply,
  geminiStall,
  offersFunction,
} from "@evals/vcr";
import { describe, expect, it } from "vitest";
import {
  findGemini,
  GEMINI_HOOKS_FILE,
  geminiRunner,
  parseGeminiOutput,
  runFromGeminiOutput,
} from "../src/index.js";
import { badRequestScript, loopScript, toolsScript, workspace } from "./helpers.js";

const outputRoot = join(import.meta.dirname, "..", "test-output");

describe("geminiRunner on the real gemini CLI against a scripted loopback Gemini API", () => {
  it("normalizes shell commands, a read, an edit and a write into the shared vocabulary, a failing command as an error", async () => {
    const cwd = workspace("tools");
    await withGeminiModel(toolsScript, async (server) => {
      const result = await geminiRunner.run(
        { prompt: "Tidy the notes", cwd, baseUrl: server.url, outputRoot, timeoutMs: 120_000 },
        {},
      );
      expect(result.exit_code, result.stderr).toBe(0);
      const calls = listToolCalls(result.run);
      expect(calls.map((call) => call.name)).toEqual(["Bash", "Read", "Edit", "Write", "Bash"]);
      const originals = result.run.events.flatMap((event) =>
        event.type === "tool_call" ? [event.original_name] : [],
      );
      expect(originals).toEqual([
        "run_shell_command",
        "read_file",
        "replace",
        "write_file",
        "run_shell_command",
      ]);
      expect(calls[0]?.input).toEqual({ command: "ls missing-dir" });
      expect(calls[2]?.input).toMatchObject({
        file_path: "notes.txt",
        old_string: "hello",
        new_string: "goodbye",
      });
      expect(calls[3]?.input).toEqual({ file_path: "summary.md", content: "# Done\n" });
      // Gemini's stream says "success" for the failing `ls`: the AfterTool hook's exit code says otherwise.
      expect(calls.map((call) => call.result?.is_error)).toEqual([true, false, false, false, false]);
      expect(calls[0]?.result?.error).toMatch(/Exit Code: 2/);
      expect(calls[4]?.result?.output).toContain("# Done");
      const final = finalResult(result.run);
      expect(final).toMatchObject({
        subtype: "success",
        is_error: false,
        terminal_reason: "completed",
        num_turns: 6,
      });
      expect(final?.result).toBe("All done (last output: ok).");
      expect(final?.usage?.input_tokens).toBeGreaterThan(0);
      expect(final?.total_cost_usd).toBeGreaterThan(0);
      expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("goodbye world\n");
      // No request left loopback, and every one went to the scripted model.
      expect(server.interactions.every((interaction) => interaction.source === "scripted")).toBe(true);

      // The stored stream alone (evals grade --agent gemini) gives the same calls; without the
      // hook payloads the failing command cannot be seen, unless they are given.
      const stream = join(result.output_dir!, "stream.jsonl");
      const bare = runFromGeminiOutput(stream, { prompts: ["Tidy the notes"] });
      expect(listToolCalls(bare).map((call) => call.name)).toEqual(["Bash", "Read", "Edit", "Write", "Bash"]);
      expect(listToolCalls(bare)[0]?.result?.is_error).toBe(false);
      expect(bare.notes.map((note) => note.message).join("\n")).toMatch(/reads as a success/);
      const afterTool = readFileSync(join(result.output_dir!, GEMINI_HOOKS_FILE), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      const withHooks = parseGeminiOutput(readFileSync(stream, "utf8"), stream, { afterTool });
      expect(listToolCalls(withHooks)[0]?.result?.is_error).toBe(true);
    });
  }, 180_000);

  it("runs a prompt too long for one command-line argument (300 KB: spawn E2BIG before), the model gets it whole", async () => {
    // Past 128 KiB, one argv string is refused by the kernel (MAX_ARG_STRLEN).
    const prompt = `Summarise this log.\n${"line of a very long log ✓\n".repeat(12_000)}end of the log`;
    const seen: string[] = [];
    await withGeminiModel(
      (request) => {
        seen.push(geminiPrompt(request));
        return geminiReply("Summarised.");
      },
      async (server) => {
        const result = await geminiRunner.run(
          { prompt, cwd: workspace("huge-prompt"), baseUrl: server.url, outputRoot, timeoutMs: 120_000 },
          {},
        );
        expect((result as { error?: string }).error).toBeUndefined();
        expect(seen).toEqual([prompt]);
        expect(finalResult(result.run)).toMatchObject({ is_error: false, result: "Summarised." });
      },
    );
  }, 180_000);

  it("reports an API error as a failed outcome with its HTTP status", async () => {
    await withGeminiModel(badRequestScript, async (server) => {
      const result = await geminiRunner.run(
        {
          prompt: "Say hi",
          cwd: workspace("api-error"),
          baseUrl: server.url,
          outputRoot,
          timeoutMs: 120_000,
        },
        {},
      );
      expect(result.exit_code).toBe(144); // 400 mod 256
      const final = finalResult(result.run);
      expect(final).toMatchObject({
        is_error: true,
        subtype: "error_during_execution",
        terminal_reason: "api_error",
        api_error_status: 400,
      });
      expect(final?.errors?.join("\n")).toContain("The scripted model refuses this request");
      // The bare stream alone (evals grade --agent gemini) tells the same outcome.
      expect(finalResult(runFromGeminiOutput(join(result.output_dir!, "stream.jsonl")))).toMatchObject({
        is_error: true,
        terminal_reason: "api_error",
        api_error_status: 400,
      });
      expect((result as { error?: string }).error).toMatch(/api_error/);
    });
  }, 180_000);

  it("stops at maxTurns (model.maxSessionTurns) and reports the turn limit", async () => {
    await withGeminiModel(loopScript, async (server) => {
      const result = await geminiRunner.run(
        {
          prompt: "Loop",
          cwd: workspace("turns"),
          baseUrl: server.url,
          outputRoot,
          maxTurns: 3,
          timeoutMs: 120_000,
        },
        {},
      );
      expect(result.exit_code).toBe(53);
      const final = finalResult(result.run);
      expect(final).toMatchObject({
        is_error: true,
        subtype: "error_max_turns",
        terminal_reason: "max_turns",
      });
      expect(listToolCalls(result.run).length).toBe(3);
      expect(finalResult(runFromGeminiOutput(join(result.output_dir!, "stream.jsonl")))).toMatchObject({
        is_error: true,
        subtype: "error_max_turns",
        terminal_reason: "max_turns",
      });
    });
  }, 180_000);

  it("kills a run whose model never answers at its timeout, and reports it timed out", async () => {
    await withGeminiModel(
      (_request, context) => geminiStall(context),
      async (server) => {
        const result = await geminiRunner.run(
          {
            prompt: "Wait",
            cwd: workspace("timeout"),
            baseUrl: server.url,
            outputRoot,
            timeoutMs: 15_000,
            // Time enough for gemini's SIGTERM handler, which exits 0 once it has cleaned up.
            killGraceMs: 5000,
          },
          {},
        );
        expect(result.timed_out).toBe(true);
        // Killed by the runner: no exit code of its own, as a timed-out Codex run (not gemini's 0).
        expect(result.exit_code).toBeNull();
        expect((result as { error?: string }).error).toMatch(/timed out after 15000 ms/);
        expect(finalResult(result.run)).toBeUndefined();
      },
    );
  }, 120_000);

  it("kills a run the caller aborts, and reports it aborted with no exit code of its own", async () => {
    await withGeminiModel(
      (_request, context) => geminiStall(context),
      async (server) => {
        const result = await geminiRunner.run(
          {
            prompt: "Wait",
            cwd: workspace("aborted"),
            baseUrl: server.url,
            outputRoot,
            timeoutMs: 120_000,
            signal: AbortSignal.timeout(8000),
            // As above: gemini's SIGTERM handler gets its time, and exits 0.
            killGraceMs: 5000,
          },
          {},
        );
        expect(result.timed_out).toBe(false);
        expect(result.exit_code).toBeNull();
        expect((result as { error?: string }).error).toBe("the run was aborted and killed");
      },
    );
  }, 120_000);

  it("names the model server and what to do when nothing listens at baseUrl", async () => {
    const baseUrl = `http://127.0.0.1:${await closedLoopbackPort()}`;
    const result = await geminiRunner.run(
      { prompt: "Say hi", cwd: workspace("dead-server"), baseUrl, outputRoot, timeoutMs: 120_000 },
      {},
    );
    const error = (result as { error?: string }).error ?? "";
    expect(error).toContain(`the model server at ${baseUrl} could not be reached (ECONNREFUSED)`);
    expect(error).toMatch(/start it, or check baseUrl/);
    expect(finalResult(result.run)).toMatchObject({ is_error: true, terminal_reason: "api_error" });
  }, 180_000);

  it("reports gemini's own refusal of a baseUrl with a user and password, never the password", async () => {
    // gemini's fetch refuses such a URL before any connection: the run fails with that reason (not
    // "fetch failed", so the runner never probes the server), and the redactor hides the password.
    const port = await closedLoopbackPort();
    const result = await geminiRunner.run(
      {
        prompt: "Say hi",
        cwd: workspace("auth-url"),
        baseUrl: `http://user:s3cret-pass@127.0.0.1:${port}/`,
        outputRoot,
        timeoutMs: 120_000,
      },
      {},
    );
    const error = (result as { error?: string }).error ?? "";
    expect(error).toMatch(/^gemini ended with an error \(api_error\): .*URL that includes credentials/);
    expect(error).not.toContain("could not be reached");
    expect(JSON.stringify(result)).not.toContain("s3cret-pass");
    const folder = result.output_dir as string;
    for (const file of readdirSync(folder))
      expect(readFileSync(join(folder, file), "utf8")).not.toContain("s3cret-pass");
  }, 180_000);

  it("refuses a prompt over the 8 MiB gemini reads from stdin (it would cut it short), before starting it", async () => {
    await withGeminiModel(
      () => geminiReply("Read."),
      async (server) => {
        // 8 MiB + 1 byte, mostly 3-byte characters: well inside the model's context window.
        const prompt = `Read this.\n${"✓".repeat(2_796_199)}a`;
        expect(Buffer.byteLength(prompt)).toBe(8 * 1024 * 1024 + 1);
        await expect(
          geminiRunner.run({ prompt, cwd: workspace("stdin-cap"), baseUrl: server.url, outputRoot }, {}),
        ).rejects.toThrow(
          "prompt 1 is 8388609 bytes, over the 8388608 bytes (8 MiB) gemini reads from stdin: Gemini cannot take it",
        );
        expect(server.interactions).toEqual([]);
      },
    );
  }, 180_000);

  it("refuses a prompt over the model's context window as gemini estimates it (it would drop it and exit 0)", async () => {
    await withGeminiModel(
      () => geminiReply("Read."),
      async (server) => {
        const prompt = `Read this.\n${"x".repeat(5_000_000)}`;
        await expect(
          geminiRunner.run({ prompt, cwd: workspace("context"), baseUrl: server.url, outputRoot }, {}),
        ).rejects.toThrow(
          "prompt 1 is 5000011 characters, over the 4194304 characters gemini takes (the model's context window of 1048576 tokens at its estimate of 4 characters a token): Gemini cannot take it",
        );
        expect(server.interactions).toEqual([]);
      },
    );
  }, 180_000);

  it("reports a gemini that exits 0 without a result as a failed run", async () => {
    await withGeminiModel(
      () => geminiReply("Read."),
      async (server) => {
        // Just under the runner's limit, yet over gemini's own once it adds its context to the request.
        const prompt = `Read this.\n${"x".repeat(4_194_200)}`;
        const result = await geminiRunner.run(
          { prompt, cwd: workspace("dropped"), baseUrl: server.url, outputRoot, timeoutMs: 120_000 },
          {},
        );
        expect(server.interactions).toEqual([]);
        expect(result.exit_code).toBe(0);
        expect((result as { error?: string }).error).toMatch(/^gemini exited without a result/);
      },
    );
  }, 180_000);

  it("runs several prompts as turns of one session (--resume latest), the model seeing the earlier ones", async () => {
    await withGeminiModel(
      (request) => geminiReply(`turn ${request.contents.filter((c) => c.role === "user").length}`),
      async (server) => {
        const result = await geminiRunner.run(
          {
            prompt: ["First question", "Second question"],
            cwd: workspace("turns2"),
            baseUrl: server.url,
            outputRoot,
            timeoutMs: 120_000,
          },
          {},
        );
        expect(result.exit_code, result.stderr).toBe(0);
        const said = result.run.events.flatMap((event) =>
          event.type === "user_message" || event.type === "assistant_text"
            ? [`${event.type}: ${event.text}`]
            : [],
        );
        expect(said).toEqual([
          "user_message: First question",
          "assistant_text: turn 1",
          "user_message: Second question",
          "assistant_text: turn 2",
        ]);
        expect(finalResult(result.run)).toMatchObject({ is_error: false, result: "turn 2" });
        // Tokens of both prompts' results, added up.
        const results = readFileSync(join(result.output_dir!, "stream.jsonl"), "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line))
          .filter((event) => event.type === "result");
        expect(results).toHaveLength(2);
        expect(finalResult(result.run)?.usage?.input_tokens).toBe(
          results[0].stats.input_tokens + results[1].stats.input_tokens,
        );
        // The second turn's request carries the first exchange.
        expect(JSON.stringify(server.interactions.at(-1)?.request.body)).toContain("First question");
      },
    );
  }, 180_000);

  it("takes tools away by their shared names (disallowedTools: Bash -> tools.exclude run_shell_command)", async () => {
    const offered: boolean[] = [];
    await withGeminiModel(
      (request) => {
        offered.push(offersFunction(request, "run_shell_command"));
        return countFunctionResponses(request) === 0
          ? geminiReply(geminiFunctionCall("run_shell_command", { command: "ls" }))
          : geminiReply("no shell");
      },
      async (server) => {
        const result = await geminiRunner.run(
          {
            prompt: "List",
            cwd: workspace("exclude"),
            baseUrl: server.url,
            outputRoot,
            disallowedTools: ["Bash"],
            timeoutMs: 120_000,
          },
          {},
        );
        expect(result.exit_code, result.stderr).toBe(0);
        expect(offered).toEqual([false, false]);
        const [call] = listToolCalls(result.run);
        expect(call).toMatchObject({ name: "Bash", status: "error" });
        expect(call?.result?.error).toMatch(/tool_not_registered/);
      },
    );
  }, 180_000);

  it("refuses options that are not Gemini's", () => {
    expect(() => geminiRunner.optionsSchema.parse({ permissionMode: "plan" })).toThrow(/permissionMode/);
    expect(geminiRunner.optionsSchema.parse({ approvalMode: "auto_edit" })).toEqual({
      approvalMode: "auto_edit",
    });
  });
});

describe("findGemini", () => {
  it("runs the gemini installed in the agent's cwd, not the one the test process's cwd would find first", async () => {
    // The run's workspace has its own node_modules/.bin/gemini (a link to the real one); the test
    // process runs in this package, whose parents hold the monorepo's gemini.
    const cwd = workspace("own-bin");
    mkdirSync(join(cwd, "node_modules", ".bin"), { recursive: true });
    const own = join(cwd, "node_modules", ".bin", "gemini");
    symlinkSync(resolve(import.meta.dirname, "../../../node_modules/.bin/gemini"), own);
    await withGeminiModel(
      () => geminiReply("Hi."),
      async (server) => {
        const result = await geminiRunner.run(
          { prompt: "Say hi", cwd, baseUrl: server.url, outputRoot, timeoutMs: 120_000 },
          {},
        );
        expect(result.exit_code, result.stderr).toBe(0);
        expect((result as { command?: string[] }).command?.[0]).toBe(own);
      },
    );
  }, 180_000);

  it("finds the gemini next to @evals/gemini-cli itself, from a folder with none and an empty PATH", () => {
    const outside = mkdtempSync(join(tmpdir(), "evals-gemini-outside-"));
    try {
      const bin = findGemini(undefined, outside, { PATH: "" });
      const installed = resolve(import.meta.dirname, "../../../node_modules/.bin/gemini");
      expect(realpathSync(bin)).toBe(realpathSync(installed));
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
