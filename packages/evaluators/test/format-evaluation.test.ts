import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { evaluate, formatEvaluation } from "../src/index.js";

describe("formatEvaluation", () => {
  it("lists the first 10 reasons and says how many more --verbose shows; --verbose lists all", async () => {
    const run = fixtureRun("multi-tool");
    const evaluation = await evaluate(run, { id: "steps", prompt: "do the steps" });
    const reasons = Array.from({ length: 25 }, (_, n) => `approval-gate: missing-approval: call ${n}`);
    const many = { ...evaluation, reasons };
    const lines = formatEvaluation(many, run).split("\n");
    const verdict = lines.indexOf("Verdict: FAIL (25 reasons)");
    expect(lines.slice(verdict + 1)).toEqual([
      ...reasons.slice(0, 10).map((reason) => `  - ${reason}`),
      "  ... 15 more (--verbose shows all)",
    ]);
    const all = formatEvaluation(many, run, { verbose: true }).split("\n");
    expect(all.slice(all.indexOf("Verdict: FAIL (25 reasons)") + 1)).toEqual(
      reasons.map((reason) => `  - ${reason}`),
    );
    // Ten or fewer: all of them, and no "more" line.
    const ten = formatEvaluation({ ...evaluation, reasons: reasons.slice(0, 10) }, run);
    expect(ten.split("\n").slice(-10)).toEqual(reasons.slice(0, 10).map((reason) => `  - ${reason}`));
    expect(ten).not.toContain("more (--verbose");
  });
});
