import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { codexRunner } from "@evals/codex";
import type { AgentRunResult } from "@evals/core";
import { geminiRunner } from "@evals/gemini-cli";
import { fixturesDir } from "@evals/test-kit/claude-fixtures";
import {
  countFunctionResponses,
  execCommand,
  geminiError,
  geminiFunctionCall,
  geminiReply,
  type ModelSource,
  response,
  responsesError,
  scriptedGemini,
  scriptedResponses,
  startModelServer,
} from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { runEvals } from "./evals-bin.js";

// `evals grade` on Codex and Gemini CLI runs that ended badly: the real codex and gemini CLIs, run by
// their runners against scripted loopback models that fail (an HTTP error) or never stop (the turn
// limit), graded from their run folders and from the bare .jsonl the CLI printed (--agent codex|gemini).
const temp = mkdtempSync(join(tmpdir(), "evals-grade-cg-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const caseFile = join(temp, "case.yaml");
writeFileSync(caseFile, ["id: loops", "prompt: Loop", "behavior:", "  mustNotUseTools: [Write]"].join("\n"));

type Runner = typeof codexRunner | typeof geminiRunner;

async function runOn(runner: Runner, source: ModelSource, label: string): Promise<AgentRunResult> {
  const server = await startModelServer({ source, modelApi: runner.modelApi });
  try {
    const cwd = mkdtempSync(join(temp, `${label}-work-`));
    writeFileSync(join(cwd, "notes.txt"), "hello world\n");
    return await runner.run(
      {
        prompt: "Loop",
        cwd,
        baseUrl: server.url,
        outputRoot: join(temp, "out"),
        maxTurns: 2,
        timeoutMs: 150_000,
      },
      {},
    );
  } finally {
    await server.close();
  }
}

const runs: Record<string, AgentRunResult> = {};
beforeAll(async () => {
  runs.codexApiError = await runOn(
    codexRunner,
    scriptedResponses(() => responsesError(500, "the scripted model is down")),
    "codex-api",
  );
  runs.codexTurns = await runOn(
    codexRunner,
    scriptedResponses((_request, context) => response(execCommand(`echo step ${context.call}`))),
    "codex-turns",
  );
  runs.geminiApiError = await runOn(
    geminiRunner,
    scriptedGemini(() => geminiError(400, "The scripted model refuses this request")),
    "gemini-api",
  );
  runs.geminiTurns = await runOn(
    geminiRunner,
    scriptedGemini((request) =>
      geminiReply(
        geminiFunctionCall("read_file", { file_path: "notes.txt" }),
        `step ${countFunctionResponses(request)}`,
      ),
    ),
    "gemini-turns",
  );
}, 600_000);

const folderOf = (name: string) => runs[name]!.output_dir!;
const grade = (args: string[]) => runEvals(["grade", ...args, "--case", caseFile]);

describe("evals grade on Codex and Gemini CLI runs", () => {
  it("fails a Codex run folder and its bare .jsonl ended by an API error, with the reason", () => {
    for (const target of [
      [folderOf("codexApiError")],
      [join(folderOf("codexApiError"), "stream.jsonl"), "--agent", "codex"],
    ]) {
      const result = grade(target);
      // The bare stream hides the status (Codex prints a generic message): the run folder knows it.
      expect(result.stdout).toMatch(/- outcome: api-error: the API returned .*which ended the run/);
      expect(result.stdout).toContain("Verdict: FAIL");
      expect(result.code, result.stderr).toBe(EXIT.failed);
    }
    expect(grade([folderOf("codexApiError")]).stdout).toMatch(
      /the API returned HTTP 500, which ended the run/,
    );
    expect(grade([join(folderOf("codexApiError"), "stream.jsonl"), "--agent", "codex"]).stdout).toContain(
      "(agent-jsonl)",
    );
  });

  it("fails a Codex run folder stopped at the turn limit the runner enforces, with the reason", () => {
    const result = grade([folderOf("codexTurns")]);
    expect(result.stdout).toMatch(/- outcome: max-turns: .*maximum of 2 turns/);
    expect(result.stdout).toContain("Verdict: FAIL");
    expect(result.code, result.stderr).toBe(EXIT.failed);
  });

  it("fails a Gemini run folder and its bare .jsonl ended by an API error, with the reason", () => {
    for (const target of [
      [folderOf("geminiApiError")],
      [join(folderOf("geminiApiError"), "stream.jsonl"), "--agent", "gemini"],
    ]) {
      const result = grade(target);
      expect(result.stdout).toMatch(
        /- outcome: api-error: the API returned HTTP 400.*The scripted model refuses this request/,
      );
      expect(result.stdout).toContain("Verdict: FAIL");
      expect(result.code, result.stderr).toBe(EXIT.failed);
    }
  });

  it("fails a Gemini run folder and its bare .jsonl stopped at the turn limit, with the reason", () => {
    for (const target of [
      [folderOf("geminiTurns")],
      [join(folderOf("geminiTurns"), "stream.jsonl"), "--agent", "gemini"],
    ]) {
      const result = grade(target);
      expect(result.stdout).toMatch(/- outcome: max-turns: /);
      expect(result.stdout).toContain("Verdict: FAIL");
      expect(result.code, result.stderr).toBe(EXIT.failed);
    }
  });

  // Each agent's reader finds nothing it knows in another agent's lines: graded as such, any stream
  // was "0 tool calls" and a verdict, with nothing saying the file was read as the wrong format.
  it("refuses another agent's stream (exit 2) naming the file, whose format it is and the --agent to use", () => {
    const claudeStream = `${fixturesDir}blind-retry/stream.jsonl`;
    const openCodeStream = fileURLToPath(
      new URL("../../../fixtures/opencode-1.18.33/oc-bash/stdout.jsonl", import.meta.url),
    );
    const codexStream = join(folderOf("codexTurns"), "stream.jsonl");
    const geminiStream = join(folderOf("geminiTurns"), "stream.jsonl");
    const cases: Array<[string, string | undefined, RegExp]> = [
      [claudeStream, "codex", /Claude Code's stream-json.*--agent claude-code/],
      [claudeStream, "gemini", /Claude Code's stream-json.*--agent claude-code/],
      [claudeStream, "opencode", /Claude Code's stream-json.*--agent claude-code/],
      [openCodeStream, "codex", /OpenCode's .*--agent opencode/],
      [openCodeStream, "claude-code", /OpenCode's .*--agent opencode/],
      [codexStream, "gemini", /Codex's `codex exec --json`.*--agent codex/],
      [codexStream, "claude-code", /Codex's `codex exec --json`.*--agent codex/],
      [codexStream, undefined, /Codex's `codex exec --json`.*--agent codex/],
      [geminiStream, "codex", /Gemini CLI's .*--agent gemini/],
      [geminiStream, undefined, /Gemini CLI's .*--agent gemini/],
    ];
    for (const [file, agent, message] of cases) {
      const result = grade([file, ...(agent ? ["--agent", agent] : [])]);
      const what = `${file} --agent ${agent}`;
      expect(result.stdout, what).toBe("");
      expect(result.stderr, what).toContain(file);
      expect(result.stderr, what).toMatch(message);
      expect(result.code, what).toBe(EXIT.badInput);
    }
  });
});
