import { claudeCodeRunner } from "@evals/claude-code";
import { describe, expect, it } from "vitest";
import { RunnerRegistry, resolveRunner, suiteRegistry, UnknownRunnerError } from "../src/index.js";

const otherRunner = { ...claudeCodeRunner, cli: "other" };

describe("RunnerRegistry", () => {
  it("finds a runner by its cli, the first registered being the default", () => {
    const runners = new RunnerRegistry([claudeCodeRunner, otherRunner]);
    expect(runners.get("other")).toBe(otherRunner);
    expect(runners.default).toBe(claudeCodeRunner);
    expect(runners.names()).toEqual(["claude-code", "other"]);
    expect(() => new RunnerRegistry([claudeCodeRunner, claudeCodeRunner])).toThrow(
      'two runners for the agent CLI "claude-code"',
    );
  });

  it("names the registered runners when asked for another", () => {
    expect(() => new RunnerRegistry([claudeCodeRunner]).get("codex")).toThrow(UnknownRunnerError);
    expect(() => new RunnerRegistry([claudeCodeRunner]).get("codex")).toThrow(
      'agent "codex": no runner for it is registered; the registered ones are "claude-code"',
    );
    expect(() => new RunnerRegistry([]).get("codex")).toThrow(/no agent runner is registered/);
  });
});

describe("resolveRunner", () => {
  it("takes a runner as it is, a name from the registry or the suite's own runner, and else the default", () => {
    const runners = new RunnerRegistry([claudeCodeRunner]);
    expect(resolveRunner(otherRunner, { runners })).toBe(otherRunner);
    expect(resolveRunner("claude-code", { runners })).toBe(claudeCodeRunner);
    expect(resolveRunner(undefined, { runners })).toBe(claudeCodeRunner);
    // A case's agent.cli names the suite's own runner.
    expect(resolveRunner("other", { agent: otherRunner })).toBe(otherRunner);
    expect(resolveRunner(undefined, { agent: "claude-code", runners })).toBe(claudeCodeRunner);
    expect(() => resolveRunner("codex", { agent: otherRunner, runners })).toThrow(
      'the registered ones are "claude-code", "other"',
    );
    expect(() => resolveRunner(undefined, {})).toThrow(
      /^no agent runner: give the suite `agent: claudeCodeRunner`/,
    );
  });

  it("a suite's registry holds its own agent runner too", () => {
    expect(suiteRegistry({ agent: otherRunner })?.names()).toEqual(["other"]);
    const runners = new RunnerRegistry([claudeCodeRunner]);
    expect(suiteRegistry({ runners })).toBe(runners);
    expect(suiteRegistry({ agent: otherRunner, runners })?.names()).toEqual(["other", "claude-code"]);
  });
});
