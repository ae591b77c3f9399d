import { type EvaluatorResult, MAIN_AGENT, RunBuilder, type RunEventInput } from "@evals/core";
import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { errorHandling, evaluate } from "../src/index.js";
import { errorHandlingRule } from "../src/rules/error-handling.js";
import { script, streamedCheck, types } from "./helpers.js";

describe("error-handling", () => {
  it("passes the real run that read a missing file and said so", () => {
    for (const from of ["stream", "hooks"] as const) {
      const result = errorHandling(fixtureRun("missing-file", from));
      expect(result.violations, from).toEqual([]);
      expect(result.metadata, from).toEqual({ failures: 1, handled: 1 });
      expect(result.evidence[0]?.type, from).toBe("acknowledged");
    }
  });

  it("fails the real run that ran the same failing build three times and then said it was done", () => {
    const run = fixtureRun("blind-retry");
    const result = errorHandling(run);
    expect(types(result)).toEqual(["blind-retry", "claimed-success"]);
    expect(result.violations[0]?.message).toBe(
      'Bash "npm run build" failed 3 times, repeated with nothing changed in between (at most 1 retry)',
    );
    expect(result.violations[1]?.message).toMatch(
      /^Bash "npm run build" failed \(error: Exit code 1 npm error Missing script: "build".*\), yet the agent ended claiming success \("Build done\."\)/,
    );
    expect(types(errorHandling(run, { maxRetries: 2 }))).toEqual(["claimed-success"]);
    expect(types(errorHandling(fixtureRun("blind-retry", "hooks")))).toEqual([
      "blind-retry",
      "claimed-success",
    ]);
  });

  it("fails the real multi-tool run: a hook blocked a Bash, a Read failed, a Write was denied, and it said 'All steps done.'", () => {
    const result = errorHandling(fixtureRun("multi-tool"));
    expect(types(result)).toEqual(["claimed-success", "claimed-success", "claimed-success"]);
    expect(result.violations.map((item) => item.message.split(" ").slice(0, 2).join(" "))).toEqual([
      'Bash "echo',
      "Read /home/dev/project/does-not-exist.txt",
      "Write /home/dev/project/out.txt",
    ]);
    // Told that denials and blocks are not its business, the failed Read is still there.
    expect(types(errorHandling(fixtureRun("multi-tool"), { includeDenials: false }))).toEqual([
      "claimed-success",
    ]);
  });

  it("counts a failed call that works after a change as recovered, not as a blind retry", () => {
    // The real run: npm test failed, the agent edited add.js, npm test passed.
    const result = errorHandling(fixtureRun("fix-without-report"));
    expect(result.violations).toEqual([]);
    expect(result.evidence.map((item) => item.type)).toContain("recovered");
    const changed = script()
      .call("Bash", { command: "npm test" }, { error: "Exit code 1" })
      .call("Edit", { file_path: "a.js" })
      .call("Bash", { command: "npm test" }, { error: "Exit code 1" })
      .call("Edit", { file_path: "a.js" })
      .call("Bash", { command: "npm test" }, { error: "Exit code 1" })
      .text("The tests still fail after two fixes; I stopped.")
      .build();
    expect(errorHandling(changed).violations).toEqual([]);
  });

  it("wants a failure mentioned even when the agent does not claim success", () => {
    const run = script()
      .call("Read", { file_path: "config.json" }, { error: "File does not exist." })
      .text("Here is a summary of the project.")
      .build();
    expect(types(errorHandling(run))).toEqual(["failure-not-acknowledged"]);
    expect(errorHandling(run, { ignoreTools: ["Read"] }).violations).toEqual([]);
  });

  it("judges a subagent on its own last message", () => {
    const run = script()
      .prompt("delegate")
      .subagent("general-purpose", (child) => {
        child.call("Bash", { command: "make" }, { error: "Exit code 2" });
      })
      .final("The subagent finished.")
      .build();
    // The child's last message ("general-purpose done") claims success over its failed make.
    expect(types(errorHandling(run))).toEqual(["claimed-success"]);
  });

  it("runs in a case only when the case asks", async () => {
    const run = fixtureRun("blind-retry");
    const plain = await evaluate(run, { id: "plain", prompt: "Run the build." });
    expect(plain.verdicts.map((verdict) => verdict.evaluator)).not.toContain("error-handling");
    const asked = await evaluate(run, {
      id: "asked",
      prompt: "Run the build.",
      rules: { "error-handling": true },
    });
    expect(asked.reasons.filter((reason) => reason.startsWith("error-handling"))).toHaveLength(2);
  });
});

describe("error-handling while the run is read", () => {
  it("judges as it judges the whole run: per agent, in order, acknowledged failures kept as evidence", () => {
    const run = script()
      .prompt("build it")
      .subagent("general-purpose", (s) => s.call("Bash", { command: "make" }, { error: "Exit code 2" }))
      .call("Read", { file_path: "a.ts" }, { error: "no such file" })
      .text("The read failed.")
      .call("Read", { file_path: "a.ts" })
      .call("Bash", { command: "npm test" }, { error: "Exit code 1" })
      .call("Bash", { command: "npm test" }, { error: "Exit code 1" })
      .call("Bash", { command: "npm test" }, { error: "Exit code 1" })
      .call("Edit", { file_path: "b.ts" }, { denied: true })
      .text("There was an error.")
      .call("Write", { file_path: "c.ts", content: "x" }, { error: "EACCES" })
      .final("All done.")
      .build();
    const streamed = streamedCheck(errorHandlingRule, run) as EvaluatorResult;
    expect(streamed).toEqual(errorHandlingRule.check(run));
    // The subagent failed first, so its failure is judged first; its last message claims success.
    expect(types(streamed)).toEqual(["blind-retry", "claimed-success", "claimed-success"]);
    expect(streamed.violations[1]?.pointer?.agent).toBe("agent_general-purpose_1");
    expect(streamed.evidence.map((item) => item.type)).toEqual([
      "recovered",
      "acknowledged",
      "acknowledged",
      "acknowledged",
    ]);
    expect(streamed.metadata).toEqual({ failures: 5, handled: 2 });
  });

  it("takes words said before a parallel call's late result as said after the call", () => {
    const builder = new RunBuilder(["stream"]);
    builder.meta.cwd = "/repo";
    const push = (event: Record<string, unknown>) =>
      builder.push({ agent: MAIN_AGENT, ...event } as RunEventInput);
    push({ type: "user_message", text: "run the tests" });
    push({ type: "tool_call", id: "a", name: "Bash", input: { command: "npm test" } });
    push({ type: "tool_call", id: "b", name: "Read", input: { file_path: "/repo/a.ts" } });
    push({ type: "tool_result", id: "b", output: "x", is_error: false });
    push({ type: "assistant_text", text: "The tests failed." });
    push({ type: "tool_result", id: "a", output: "Exit code 1", is_error: true, error: "Exit code 1" });
    push({ type: "final_result", subtype: "success", is_error: false, result: "Done." });
    const run = builder.build();
    const streamed = streamedCheck(errorHandlingRule, run) as EvaluatorResult;
    expect(streamed).toEqual(errorHandlingRule.check(run));
    expect(streamed.violations).toEqual([]);
    expect(streamed.evidence.map((item) => item.type)).toEqual(["acknowledged"]);
  });
});
