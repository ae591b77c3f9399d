import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadCases } from "@evals/evaluators";
import { type CaseModels, type RunCasesResult, runCases } from "@evals/harness";
import {
  applyPatch,
  countFunctionResponses,
  countToolResults,
  execCommand,
  geminiFunctionCall,
  geminiReply,
  reply,
  requestEnvironment,
  response,
  type ScriptFunction,
  scriptedGemini,
  scriptedResponses,
  text,
  toolOutputs,
  toolUse,
  updateFile,
} from "@evals/vcr";
import { beforeAll, describe, expect, it } from "vitest";
import { cliRunners } from "../src/runners.js";
import { tempDirs } from "./temp-dirs.js";

// One case file, four agents: the same evaluator code judges a Claude Code, an OpenCode, a Codex and
// a Gemini CLI run of the same task. Each agent is its real CLI (node_modules/.bin) against a scripted
// loopback model (offline) that does the same work in the agent's own tool dialect: a shell command
// (`ls`), a read of config.txt (Codex has no read tool: `cat`), and an edit of one line.
const casesFile = fileURLToPath(new URL("./__fixtures__/four-agents/cases.yaml", import.meta.url));
const temp = tempDirs();

const OLD = "timeout_ms = 5000";
const NEW = "timeout_ms = 10000";
const DONE = "Raised the timeout to 10000.";

const claudeCode: ScriptFunction = (request) => {
  const config = join(requestEnvironment(request).cwd ?? ".", "config.txt");
  switch (countToolResults(request)) {
    case 0:
      return reply(toolUse("Bash", { command: "ls" }));
    case 1:
      return reply(toolUse("Read", { file_path: config }));
    case 2:
      return reply(toolUse("Edit", { file_path: config, old_string: OLD, new_string: NEW }));
    default:
      return reply(text(DONE));
  }
};

const openCode: ScriptFunction = (request) => {
  const config = join(requestEnvironment(request).cwd ?? ".", "config.txt");
  switch (countToolResults(request)) {
    case 0:
      return reply(toolUse("bash", { command: "ls", description: "List the files" }));
    case 1:
      return reply(toolUse("read", { filePath: config }));
    case 2:
      return reply(toolUse("edit", { filePath: config, oldString: OLD, newString: NEW }));
    default:
      return reply(text(DONE));
  }
};

const codex = scriptedResponses((request) => {
  switch (toolOutputs(request).length) {
    case 0:
      return response(execCommand("ls"));
    case 1:
      return response(execCommand("cat config.txt"));
    case 2:
      return response(applyPatch(updateFile("config.txt", OLD, NEW)));
    default:
      return response(DONE);
  }
});

const gemini = scriptedGemini((request) => {
  switch (countFunctionResponses(request)) {
    case 0:
      return geminiReply(geminiFunctionCall("run_shell_command", { command: "ls" }));
    case 1:
      return geminiReply(geminiFunctionCall("read_file", { file_path: "config.txt" }));
    case 2:
      return geminiReply(
        geminiFunctionCall("replace", {
          file_path: "config.txt",
          old_string: OLD,
          new_string: NEW,
          instruction: "raise the timeout",
        }),
      );
    default:
      return geminiReply(DONE);
  }
});

const AGENTS: Record<string, CaseModels> = {
  "claude-code": () => claudeCode,
  opencode: () => openCode,
  codex: () => codex,
  gemini: () => gemini,
};

/** The trial's copy of the fixture, which Claude Code and Codex name by absolute paths, the others relatively. */
const FIXTURE_COPY = /\/\S*evals-fixture-[^/\s"]+\//g;

/** A verdict without what differs between agents by nature (ids, times, tokens, paths). */
function verdicts(result: RunCasesResult) {
  return result.outcomes.map((outcome) => ({
    id: outcome.result.id,
    passed: outcome.passed,
    scores: outcome.result.scores,
    violations: outcome.result.violations.map(({ rule, type, severity, message }) => ({
      rule,
      type,
      severity,
      message: message.replace(FIXTURE_COPY, ""),
    })),
  }));
}

describe("one case file judges Claude Code, OpenCode, Codex and Gemini CLI runs of the same task", () => {
  const results: Record<string, RunCasesResult> = {};

  beforeAll(async () => {
    const cases = loadCases(casesFile);
    // Claude Code asks before an edit, and a headless run's question is denied: its own runner
    // option (agent.options) lets edits run, as Codex, Gemini CLI (yolo) and OpenCode do by default.
    const forClaudeCode = cases.map((evalCase) => ({
      ...evalCase,
      agent: { ...evalCase.agent, options: { permissionMode: "acceptEdits" } },
    }));
    // Two at a time: four real CLIs at once overload a small CI machine.
    for (const pair of [
      ["claude-code", "opencode"],
      ["codex", "gemini"],
    ]) {
      await Promise.all(
        pair.map(async (agent) => {
          results[agent] = await runCases(agent === "claude-code" ? forClaudeCode : cases, {
            suite: "four-agents",
            runners: cliRunners(),
            agent,
            outputRoot: temp(`four-agents-${agent}-`),
            model: AGENTS[agent]!,
            timeout: 150_000,
          });
        }),
      );
    }
  }, 900_000);

  it("each agent really ran its own CLI, in its own dialect, into one vocabulary", () => {
    const calls = (agent: string) =>
      results[agent]?.outcomes[0]?.runs[0]?.run.events.flatMap((event) =>
        event.type === "tool_call" ? [`${event.name} (${event.original_name ?? event.name})`] : [],
      );
    expect(calls("claude-code")).toEqual(["Bash (Bash)", "Read (Read)", "Edit (Edit)"]);
    expect(calls("opencode")).toEqual(["Bash (bash)", "Read (read)", "Edit (edit)"]);
    expect(calls("codex")).toEqual(["Bash (exec_command)", "Bash (exec_command)", "Edit (apply_patch)"]);
    expect(calls("gemini")).toEqual(["Bash (run_shell_command)", "Read (read_file)", "Edit (replace)"]);
    for (const agent of Object.keys(AGENTS)) {
      expect(results[agent]?.outcomes[0]?.runs[0]?.run.agent ?? "claude-code", agent).toBe(agent);
    }
  });

  it("gives the four runs the same scores, violations and messages", () => {
    const expected = verdicts(results["claude-code"]!);
    expect(expected.map((verdict) => [verdict.id, verdict.passed])).toEqual([
      ["raises-timeout", true],
      ["must-not-edit", false],
    ]);
    // The failing case fails for the same reason on every agent: the forbidden Edit.
    expect(expected[1]?.violations).toEqual([
      {
        rule: "behavior",
        type: "forbidden-tool",
        severity: "error",
        message: "Edit config.txt was called, but Edit must not be used",
      },
    ]);
    for (const agent of ["opencode", "codex", "gemini"]) {
      expect(verdicts(results[agent]!), agent).toEqual(expected);
    }
  });
});
