import { parseRunnerOptions, RunnerOptionsError, UnsupportedOptionError } from "@evals/core";
import { parseCase } from "@evals/evaluators";
import { describe, expect, it } from "vitest";
import { openCodeOptions, openCodeRunner } from "../src/index.js";

// The runner alone, against @evals/core's contract (runners never depend on the engine). How the
// engine finds and runs it (RunnerRegistry, runCases, describeEval) is tested where the runners
// are composed: packages/cli/test/opencode-engine.test.ts and its neighbours.
describe("the OpenCode runner", () => {
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
    let error: unknown;
    try {
      // A case's `agent.tools: [Read]`, as the shared options carry it.
      openCodeOptions({ prompt: "p", tools: ["Read"] });
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
});
