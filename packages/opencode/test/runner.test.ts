import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeCodeRunner } from "@evals/claude-code";
import { parseRunnerOptions, RunnerOptionsError, UnsupportedOptionError } from "@evals/core";
import { parseCase } from "@evals/evaluators";
import { caseRunOptions, RunnerRegistry, runCases } from "@evals/harness";
import { countToolResults, reply, text, toolUse } from "@evals/vcr";
import { afterAll, describe, expect, it } from "vitest";
import { openCodeOptions, openCodeRunner } from "../src/index.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the OpenCode runner for the harness", () => {
  it("maps the shared options onto runOpenCode's, and adds its own", () => {
    expect(
      openCodeOptions(
        {
          prompt: "hi",
          cwd: "/work",
          runId: "r1",
          maxTurns: 4,
          timeoutMs: 1000,
          baseUrl: "http://127.0.0.1:1",
        },
        { agentName: "reviewer" },
      ),
    ).toEqual({
      prompt: "hi",
      cwd: "/work",
      runId: "r1",
      maxSteps: 4,
      agent: "reviewer",
      timeoutMs: 1000,
      baseUrl: "http://127.0.0.1:1",
    });
    expect(openCodeOptions({ prompt: "hi" }, { permission: { bash: "deny" } })).toEqual({
      prompt: "hi",
      permission: { bash: "deny" },
    });
  });

  it("refuses a shared option it cannot honour, naming it and what to use instead", () => {
    const evalCase = parseCase({ id: "c", prompt: "p", agent: { cli: "opencode", tools: ["Read"] } }, "case");
    let error: unknown;
    try {
      openCodeOptions(caseRunOptions(evalCase));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UnsupportedOptionError);
    expect((error as Error).message).toBe(
      "opencode cannot honour the shared option `tools`: take tools away with OpenCode's permission instead (agent.options.permission: { bash: \"deny\" }) or a custom agent file's `tools: { bash: false }`",
    );
    expect(() => openCodeOptions({ prompt: "hi", allowedTools: ["Read"] })).toThrow(
      /opencode cannot honour the shared option `allowedTools`: allow calls with OpenCode's permission/,
    );
  });

  it("validates its own options with its optionsSchema: Claude Code's are not OpenCode's", () => {
    expect(parseRunnerOptions(openCodeRunner, { agentName: "reviewer", autoApprove: true })).toEqual({
      agentName: "reviewer",
      autoApprove: true,
    });
    expect(() => parseRunnerOptions(openCodeRunner, { permissionMode: "plan" })).toThrow(RunnerOptionsError);
    // And the other way round: a migrated OpenAgentsControl case's approval mode is OpenCode's.
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

  it("a case names its agent CLI, and its agent under agent.options", () => {
    const parsed = parseCase(
      { id: "c", prompt: "p", agent: { cli: "opencode", options: { agentName: "reviewer" } } },
      "case",
    );
    expect(parsed.agent).toMatchObject({ cli: "opencode", options: { agentName: "reviewer" } });
    expect(() => parseCase({ id: "c", prompt: "p", agent: { cli: "Open Code" } }, "case")).toThrow(
      /agent CLI name/,
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
