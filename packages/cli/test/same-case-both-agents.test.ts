import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeCodeRunner } from "@evals/claude-code";
import { type EvalCase, parseCase } from "@evals/evaluators";
import { type CaseModels, type RunCasesResult, RunnerRegistry, runCases } from "@evals/harness";
import { openCodeRunner } from "@evals/opencode";
import {
  countToolResults,
  lastToolResult,
  reply,
  requestEnvironment,
  type ScriptFunction,
  text,
  toolUse,
} from "@evals/vcr";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDirs } from "./temp-dirs.js";

// One task, two agents, one case file: the same evaluator code judges a Claude Code run and an
// OpenCode run. Each agent is the real CLI against a scripted loopback model that does the same
// work in its own tool dialect (Claude Code: `Read {file_path}` with an absolute path; OpenCode:
// `read {filePath}` relative, `bash {command, description}`).

const temp = tempDirs();

const openWork = "raise the timeout to 10s";

/** The same two cases for both agents: one the work satisfies, one it breaks (it forbids Bash). */
function casesFor(fixture: string): EvalCase[] {
  const common = {
    prompt: "Is there open work noted in notes.md?",
    agent: { fixture },
    expectedTrajectory: {
      mode: "strict",
      calls: [
        { tool: "Bash", args: { command: "ls" } },
        { tool: "Read", args: { file_path: "notes.md" } },
      ],
    },
  };
  return [
    parseCase(
      {
        ...common,
        id: "reads-notes",
        behavior: {
          mustUseTools: ["Read"],
          mustNotUseTools: ["Write", "Edit"],
          minToolCalls: 2,
          expectedResponse: { contains: openWork },
        },
      },
      "reads-notes",
    ),
    parseCase(
      { ...common, id: "no-shell", behavior: { mustUseTools: ["Read"], mustNotUseTools: ["Bash"] } },
      "no-shell",
    ),
  ];
}

/** The model's answer after reading notes.md: the TODO line it found. */
const answer = (output: string) => `Open work: ${/TODO: (.+)/.exec(output)?.[1] ?? "none"}`;

function claudeModels(): CaseModels {
  const script: ScriptFunction = (request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(toolUse("Bash", { command: "ls" }));
      case 1:
        return reply(
          toolUse("Read", { file_path: join(requestEnvironment(request).cwd ?? ".", "notes.md") }),
        );
      default:
        return reply(text(answer(lastToolResult(request)?.text ?? "")));
    }
  };
  return { "reads-notes": script, "no-shell": script };
}

function openCodeModels(): CaseModels {
  const script: ScriptFunction = (request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(toolUse("bash", { command: "ls", description: "List the files" }));
      case 1:
        return reply(toolUse("read", { filePath: "notes.md" }));
      default:
        return reply(text(answer(lastToolResult(request)?.text ?? "")));
    }
  };
  return { "reads-notes": script, "no-shell": script };
}

/** What a verdict is, without what differs between agents by nature (ids, times, tokens, paths). */
function verdicts(result: RunCasesResult) {
  return result.outcomes.map((outcome) => ({
    id: outcome.result.id,
    passed: outcome.passed,
    scores: outcome.result.scores,
    violations: outcome.result.violations.map(({ rule, type, severity, message }) => ({
      rule,
      type,
      severity,
      message,
    })),
  }));
}

const runners = new RunnerRegistry([claudeCodeRunner, openCodeRunner]);

describe("one case file judges a Claude Code run and an OpenCode run of the same task", () => {
  let claude: RunCasesResult;
  let openCode: RunCasesResult;

  beforeAll(async () => {
    const fixture = temp("both-agents-fixture-");
    writeFileSync(join(fixture, "notes.md"), `# Notes\n\nTODO: ${openWork}\n`);
    const cases = casesFor(fixture);
    [claude, openCode] = await Promise.all([
      runCases(cases, {
        suite: "both-agents",
        runners,
        outputRoot: temp("both-claude-"),
        model: claudeModels(),
      }),
      runCases(cases, {
        suite: "both-agents",
        runners,
        agent: "opencode",
        outputRoot: temp("both-opencode-"),
        model: openCodeModels(),
      }),
    ]);
  }, 400_000);

  it("each agent really ran, in its own dialect, and the Run speaks one vocabulary", () => {
    const calls = (result: RunCasesResult) =>
      result.outcomes[0]?.runs[0]?.run.events.flatMap((event) =>
        event.type === "tool_call" ? [{ name: event.name, original: event.original_name ?? event.name }] : [],
      );
    expect(claude.outcomes[0]?.runs[0]?.run.agent ?? "claude-code").not.toBe("opencode");
    expect(openCode.outcomes[0]?.runs[0]?.run.agent).toBe("opencode");
    expect(calls(claude)).toEqual([
      { name: "Bash", original: "Bash" },
      { name: "Read", original: "Read" },
    ]);
    expect(calls(openCode)).toEqual([
      { name: "Bash", original: "bash" },
      { name: "Read", original: "read" },
    ]);
  });

  it("gives both runs the same verdict: the same scores, violations and messages", () => {
    expect(verdicts(claude).map(({ id, passed }) => ({ id, passed }))).toEqual([
      { id: "reads-notes", passed: true },
      { id: "no-shell", passed: false },
    ]);
    expect(verdicts(openCode)).toEqual(verdicts(claude));
    const forbidden = verdicts(openCode)[1]?.violations.find(
      (violation) => violation.type === "forbidden-tool",
    );
    expect(forbidden?.message).toMatch(/Bash/);
  });
});
