import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { afterAll, describe, expect, it } from "vitest";

/** The built @evals/evaluators, for a child process of the test's own making. */
const builtEvaluators = import.meta.resolve("@evals/evaluators");

const temp = mkdtempSync(join(tmpdir(), "evals-violation-memory-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("the violations of a long run", () => {
  it("hold their text once: a reported error and its two reasons keep under 380 bytes (it was 440)", () => {
    const runFile = join(temp, "run.json");
    writeFileSync(runFile, JSON.stringify(fixtureRun("multi-tool")));
    // Heap kept (after a full GC) by the evaluation of 20,000 errors of one rule, in a child of its own.
    const child = spawnSync(
      process.execPath,
      [
        "--expose-gc",
        "--input-type=module",
        "-e",
        `import { readFileSync } from "node:fs";
const { defaultRuleRegistry, defineRule, evaluate, RuleOptionsBaseSchema } = await import(${JSON.stringify(builtEvaluators)});
const count = 20000;
const rule = defineRule({
  id: "many-errors",
  summary: "Reports an error per step.",
  options: RuleOptionsBaseSchema,
  evaluate(_run, _options, { violate }) {
    for (let k = 0; k < count; k++)
      violate("made-up", "error", \`Bash "npm test -- --grep case-\${k}" ran without asking for approval first\`);
    return { score: 0 };
  },
});
const rules = defaultRuleRegistry.with(rule);
const run = JSON.parse(readFileSync(${JSON.stringify(runFile)}, "utf8"));
const heap = () => { globalThis.gc(); return process.memoryUsage().heapUsed; };
const before = heap();
const evaluation = await evaluate(run, { id: "c", prompt: "p" }, rules);
const kept = heap() - before;
const verdict = evaluation.verdicts.find((item) => item.evaluator === "many-errors");
process.stdout.write(JSON.stringify({ reasons: verdict.reasons.length, keptPerError: kept / count, last: evaluation.reasons.at(-1) }));`,
      ],
      { encoding: "utf8", timeout: 120_000 },
    );
    expect(child.stderr).toBe("");
    const kept = JSON.parse(child.stdout);
    expect(kept.reasons).toBe(20_000);
    expect(kept.last).toBe(
      'many-errors: made-up: Bash "npm test -- --grep case-19999" ran without asking for approval first',
    );
    // 440 bytes when the message, the verdict's reason and the case's were three strings (the
    // message a tree of its parts); now one line, the other two slices of it.
    expect(kept.keptPerError).toBeLessThan(380);
  }, 180_000);
});
