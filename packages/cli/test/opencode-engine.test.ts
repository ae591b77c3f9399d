import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeCodeRunner } from "@evals/claude-code";
import { parseRunnerOptions, UnsupportedOptionError } from "@evals/core";
import { parseCase } from "@evals/evaluators";
import { caseRunOptions, RunnerRegistry, runCases } from "@evals/harness";
import { openCodeOptions, openCodeRunner } from "@evals/opencode";
import { countToolResults, reply, text, toolUse } from "@evals/vcr";
import { afterAll, describe, expect, it } from "vitest";

// The OpenCode runner in the engine, where this CLI composes them (a runner never depends on the
// engine, not even in its tests): found in a RunnerRegistry beside Claude Code's, a case mapped onto
// its options, and a suite run with the real opencode CLI against a scripted loopback model.
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the OpenCode runner in the engine", () => {
  it("refuses a case's shared option it cannot honour, naming it and what to use instead", () => {
    const evalCase = parseCase({ id: "c", prompt: "p", agent: { cli: "opencode", tools: ["Read"] } }, "case");
    expect(() => openCodeOptions(caseRunOptions(evalCase))).toThrow(UnsupportedOptionError);
    expect(() => openCodeOptions(caseRunOptions(evalCase))).toThrow(
      "opencode cannot honour the shared option `tools`: take tools away with OpenCode's permission instead",
    );
  });

  it("keeps each runner's own options its own: OpenCode's approval mode is no Claude Code option", () => {
    expect(() => parseRunnerOptions(claudeCodeRunner, { autoApprove: true })).toThrow(
      /claude-code runner options are invalid:\n {2}- \(options\): Unrecognized key: "autoApprove"/,
    );
  });

  it("is found by its cli in a RunnerRegistry; an unregistered one lists the registered", () => {
    const runners = new RunnerRegistry([claudeCodeRunner, openCodeRunner]);
    expect(runners.get("opencode")).toBe(openCodeRunner);
    expect(runners.default).toBe(claudeCodeRunner);
    expect(() => runners.get("no-such-cli")).toThrow(
      'agent "no-such-cli": no runner for it is registered; the registered ones are "claude-code", "opencode"',
    );
  });

  it("runs a suite's cases with the real opencode CLI when the suite's agent is opencode", async () => {
    const fixture = mkdtempSync(join(tmpdir(), "oc-runner-fixture-"));
    const output = mkdtempSync(join(tmpdir(), "oc-runner-out-"));
    dirs.push(fixture, output);
    writeFileSync(join(fixture, "a.txt"), "alpha\n");
    const result = await runCases(
      [
        parseCase(
          {
            id: "lists",
            prompt: "list the files",
            agent: { fixture },
            behavior: { mustUseTools: ["bash"], expectedResponse: { contains: "a.txt" } },
          },
          "case",
        ),
      ],
      {
        suite: "runner-test",
        runners: new RunnerRegistry([claudeCodeRunner, openCodeRunner]),
        agent: "opencode",
        outputRoot: output,
        model: {
          lists: (request) =>
            countToolResults(request) === 0
              ? reply(toolUse("bash", { command: "ls", description: "List files" }))
              : reply(text("Files: a.txt")),
        },
      },
    );
    const outcome = result.outcomes[0];
    expect(outcome?.message).toBeUndefined();
    expect(result.passed).toBe(true);
    const run = outcome?.runs[0]?.run;
    expect(run?.agent).toBe("opencode");
    expect(run?.events.find((event) => event.type === "tool_call")).toMatchObject({
      name: "Bash",
      original_name: "bash",
    });
  }, 300_000);
});
