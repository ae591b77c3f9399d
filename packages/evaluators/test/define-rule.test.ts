import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  allRules,
  BUILTIN_RULES,
  bashCommand,
  CaseFileError,
  caseJsonSchema,
  defineRule,
  evaluate,
  evaluatorsForCase,
  loadCases,
  pointerTo,
  RULE_IDS,
  RuleOptionsBaseSchema,
  registerRule,
  ruleScorer,
  unregisterRule,
} from "../src/index.js";
import { fixtureRun } from "./helpers.js";

/** A rule a user writes: every Bash command starts with an allowed program. */
const bashAllowlist = defineRule({
  id: "bash-allowlist",
  summary: "Every Bash command starts with an allowed program.",
  options: RuleOptionsBaseSchema.extend({ programs: z.array(z.string()).default(["ls"]) }).strict(),
  evaluate(_run, options, { index, evidence, violate }) {
    const allowed = new Set(options.programs ?? ["ls"]);
    let ok = 0;
    let checked = 0;
    for (const call of index.calls) {
      const command = bashCommand(call);
      if (command === undefined) continue;
      checked++;
      const program = command.trim().split(/\s+/)[0] ?? "";
      if (allowed.has(program)) {
        ok++;
        evidence.add(() => ({ type: "allowed", description: command, pointer: pointerTo(call) }));
      } else
        violate("program-not-allowed", "error", `${program} is not allowed`, pointerTo(call), { command });
    }
    return { score: checked === 0 ? 1 : ok / checked, metadata: { checked } };
  },
});

const folder = mkdtempSync(join(tmpdir(), "evals-define-rule-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
afterEach(() => unregisterRule("bash-allowlist"));

function caseFile(name: string, yaml: string): string {
  const file = join(folder, name);
  writeFileSync(file, yaml);
  return file;
}

const customCase = `id: custom-rule
prompt: do the steps
rules:
  bash-allowlist:
    programs: [ls, cat]
expectedViolations:
  - rule: bash-allowlist
    type: program-not-allowed
`;

describe("defineRule", () => {
  it("declares every built-in rule: the registry lists them in report order", () => {
    expect(BUILTIN_RULES.map((rule) => rule.id)).toEqual([...RULE_IDS]);
    for (const rule of BUILTIN_RULES) {
      expect(rule.summary.length, rule.id).toBeGreaterThan(10);
      expect(rule.options.safeParse({}).success, rule.id).toBe(true);
    }
    expect(BUILTIN_RULES.filter((rule) => rule.optIn).map((rule) => rule.id)).toEqual([
      "report-first",
      "error-handling",
    ]);
  });

  it("runs a user-defined rule from a YAML case on a real run", async () => {
    registerRule(bashAllowlist);
    const [evalCase] = loadCases(caseFile("custom.yaml", customCase));
    if (!evalCase) throw new Error("no case");
    expect(evaluatorsForCase(evalCase)).toContain("bash-allowlist");
    const evaluation = await evaluate(fixtureRun("multi-tool"), evalCase);
    const verdict = evaluation.verdicts.find((item) => item.evaluator === "bash-allowlist");
    // ls is allowed; `echo BLOCKME` (stopped by a hook, but still called) is not.
    expect(verdict?.result.violations.map((item) => item.message)).toEqual(["echo is not allowed"]);
    expect(verdict?.result.score).toBe(0.5);
    expect(verdict?.expectedViolations[0]?.passed).toBe(true);
    expect(verdict?.ok).toBe(true);
  });

  it("validates the rule's options in the case file, with the file and line", () => {
    registerRule(bashAllowlist);
    const file = caseFile("bad-options.yaml", customCase.replace("programs: [ls, cat]", "programs: ls"));
    let error: unknown;
    try {
      loadCases(file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CaseFileError);
    expect((error as CaseFileError).issues[0]).toMatchObject({ file, line: 5 });
  });

  it("is unknown to case files until it is registered", () => {
    expect(() => loadCases(caseFile("unregistered.yaml", customCase))).toThrow(/bash-allowlist/);
    registerRule(bashAllowlist);
    expect(loadCases(caseFile("registered.yaml", customCase))).toHaveLength(1);
    expect(allRules().at(-1)).toBe(bashAllowlist);
  });

  it("adds the rule to the case JSON Schema, with its summary", () => {
    registerRule(bashAllowlist);
    const rules = (caseJsonSchema().properties as Record<string, { properties: Record<string, unknown> }>)
      .rules;
    expect(rules?.properties["bash-allowlist"]).toMatchObject({
      description: "Every Bash command starts with an allowed program.",
    });
  });

  it("refuses a second rule with a taken id", () => {
    expect(() => registerRule({ ...bashAllowlist, id: "approval-gate" })).toThrow(/already registered/);
    expect(() => registerRule({ ...bashAllowlist, id: "trajectory" })).toThrow(/already registered/);
  });

  it("makes a scorer that takes its options from the case", async () => {
    registerRule(bashAllowlist);
    const [evalCase] = loadCases(caseFile("scorer.yaml", customCase));
    const scorer = ruleScorer(bashAllowlist);
    const run = fixtureRun("multi-tool");
    const fromCase = await scorer.score({ run, case: evalCase, input: "", output: "" } as never);
    expect(fromCase.violations).toHaveLength(1);
    const given = await ruleScorer(bashAllowlist, { programs: ["ls", "echo"] }).score({ run } as never);
    expect(given.violations).toHaveLength(0);
  });
});
