import assert from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  BUILTIN_RULES,
  bashCommand,
  CaseFileError,
  caseJsonSchema,
  caseSchemaFor,
  defaultRuleRegistry,
  defineRule,
  evaluate,
  evaluatorsForCase,
  loadCases,
  parseCase,
  pointerTo,
  RULE_IDS,
  RuleOptionsBaseSchema,
  RuleRegistry,
  ruleScorer,
  scorersForCase,
} from "../src/index.js";

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

const multiTool = fixtureRun("multi-tool");
const folder = mkdtempSync(join(tmpdir(), "evals-define-rule-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
/** The built-in rules and the user's: what `evals --rules <module>` gives the commands. */
const withAllowlist = defaultRuleRegistry.with(bashAllowlist);

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
    const [evalCase] = loadCases(caseFile("custom.yaml", customCase), { rules: withAllowlist });
    if (!evalCase) throw new Error("no case");
    expect(evaluatorsForCase(evalCase, withAllowlist)).toContain("bash-allowlist");
    const evaluation = await evaluate(fixtureRun("multi-tool"), evalCase, withAllowlist);
    const verdict = evaluation.verdicts.find((item) => item.evaluator === "bash-allowlist");
    // ls is allowed; `echo BLOCKME` (stopped by a hook, but still called) is not.
    expect(verdict?.result.violations.map((item) => item.message)).toEqual(["echo is not allowed"]);
    expect(verdict?.result.score).toBe(0.5);
    expect(verdict?.expectedViolations[0]?.passed).toBe(true);
    expect(verdict?.ok).toBe(true);
  });

  it("validates the rule's options in the case file, with the file and line", () => {
    const file = caseFile("bad-options.yaml", customCase.replace("programs: [ls, cat]", "programs: ls"));
    let error: unknown;
    try {
      loadCases(file, { rules: withAllowlist });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CaseFileError);
    expect((error as CaseFileError).issues[0]).toMatchObject({ file, line: 5 });
  });

  it("adds the rule to the case JSON Schema of its registry, with its summary", () => {
    const rulesOf = (schema: Record<string, unknown>) =>
      (schema.properties as Record<string, { properties: Record<string, unknown> }>).rules?.properties;
    expect(rulesOf(caseJsonSchema(withAllowlist))?.["bash-allowlist"]).toMatchObject({
      description: "Every Bash command starts with an allowed program.",
    });
    expect(rulesOf(caseJsonSchema())?.["bash-allowlist"]).toBeUndefined();
  });

  it("refuses a second rule with a taken id, or an id that is no rule id", () => {
    expect(() => defaultRuleRegistry.with({ ...bashAllowlist, id: "approval-gate" })).toThrow(
      /already registered/,
    );
    expect(() => defaultRuleRegistry.with({ ...bashAllowlist, id: "trajectory" })).toThrow(
      /already registered/,
    );
    expect(() => new RuleRegistry([{ ...bashAllowlist, id: "Bash Allowlist" }])).toThrow(/lowercase/);
    // The same rule twice is one rule.
    expect(withAllowlist.with(bashAllowlist).rules).toEqual(withAllowlist.rules);
  });

  it("makes a scorer that takes its options from the case", async () => {
    const [evalCase] = loadCases(caseFile("scorer.yaml", customCase), { rules: withAllowlist });
    const scorer = ruleScorer(bashAllowlist, undefined, withAllowlist);
    const run = fixtureRun("multi-tool");
    const fromCase = await scorer.score({ run, case: evalCase, input: "", output: "" } as never);
    expect(fromCase.violations).toHaveLength(1);
    const given = await ruleScorer(bashAllowlist, { programs: ["ls", "echo"] }).score({ run } as never);
    expect(given.violations).toHaveLength(0);
  });
});

describe("RuleRegistry", () => {
  it("gives the reasons what a violation says when they are judged, even if the rule changed it after reporting it", async () => {
    const editing = defineRule({
      id: "editing-rule",
      summary: "Reports an error and edits it.",
      options: RuleOptionsBaseSchema,
      evaluate(_run, _options, { violate, violations }) {
        violate("first-type", "error", "the message as reported");
        violate("kept", "error", "a message left as it was");
        const [edited] = violations;
        if (edited) {
          edited.type = "other-type";
          edited.message = "the message as edited";
        }
        return { score: 0 };
      },
    });
    const evaluation = await evaluate(multiTool, { id: "c", prompt: "p" }, defaultRuleRegistry.with(editing));
    const verdict = evaluation.verdicts.find((item) => item.evaluator === "editing-rule");
    expect(verdict?.reasons).toEqual(["other-type: the message as edited", "kept: a message left as it was"]);
    expect(evaluation.reasons).toEqual(
      expect.arrayContaining([
        "editing-rule: other-type: the message as edited",
        "editing-rule: kept: a message left as it was",
      ]),
    );
    expect(verdict?.violations.map((item) => item.message)).toEqual([
      "the message as edited",
      "a message left as it was",
    ]);
  });

  it("reports violations as plain objects: strict comparisons, JSON and copies see only their fields", async () => {
    const evaluation = await evaluate(
      multiTool,
      { id: "c", prompt: "p", rules: { "bash-allowlist": { programs: [] } } },
      withAllowlist,
    );
    const [reported] =
      evaluation.verdicts.find((item) => item.evaluator === "bash-allowlist")?.violations ?? [];
    const expected = {
      rule: "bash-allowlist",
      type: "program-not-allowed",
      severity: "error",
      message: reported?.message,
      pointer: reported?.pointer,
      evidence: reported?.evidence,
    };
    expect(reported?.message).toMatch(/ is not allowed$/);
    // A class instance, or a visible extra key, fails both: they compare prototypes and own keys.
    expect(reported).toStrictEqual(expected);
    assert.deepStrictEqual(reported, expected);
    expect(Object.getPrototypeOf(reported)).toBe(Object.prototype);
    expect(Object.keys({ ...reported })).toEqual(Object.keys(expected));
    expect(structuredClone(reported)).toStrictEqual(expected);
  });

  it("keeps a user rule in the registry it was added to: another registry and the default never see it", async () => {
    const other = defaultRuleRegistry.with(defineRule({ ...bashAllowlist, id: "other-rule" }));
    expect(withAllowlist.get("bash-allowlist")).toBe(bashAllowlist);
    expect(withAllowlist.rules.at(-1)).toBe(bashAllowlist);
    expect(other.get("bash-allowlist")).toBeUndefined();
    expect(defaultRuleRegistry.get("bash-allowlist")).toBeUndefined();
    // `with` made new registries: the default still has exactly the built-in rules.
    expect(defaultRuleRegistry.rules).toEqual([...BUILTIN_RULES]);
    expect(defaultRuleRegistry.evaluatorIds()).not.toContain("bash-allowlist");
    expect(withAllowlist.evaluatorIds()).toContain("bash-allowlist");

    // What cases see: parsing, the evaluators a case runs, its scorers.
    const value = { id: "c", prompt: "p", rules: { "bash-allowlist": { programs: ["ls"] } } };
    expect(parseCase(value, "<case>", withAllowlist).rules).toHaveProperty("bash-allowlist");
    expect(() => parseCase(value, "<case>", other)).toThrow(/unknown field "bash-allowlist"/);
    expect(() => parseCase(value)).toThrow(/unknown field "bash-allowlist"/);
    expect(scorersForCase(value, withAllowlist).map((scorer) => scorer.name)).toContain("bash-allowlist");
    const plain = parseCase({ id: "plain", prompt: "p" });
    expect(evaluatorsForCase(plain, withAllowlist)).toContain("bash-allowlist");
    expect(evaluatorsForCase(plain)).not.toContain("bash-allowlist");
    expect(evaluatorsForCase(plain, other)).not.toContain("bash-allowlist");
  });

  it("builds the case schema from its rules: the user rule's field is accepted there, refused by the default with file, line and field", () => {
    expect(
      caseSchemaFor(withAllowlist).safeParse({ id: "c", rules: { "bash-allowlist": true } }).success,
    ).toBe(true);
    expect(caseSchemaFor().safeParse({ id: "c", rules: { "bash-allowlist": true } }).success).toBe(false);
    // A registry never changes, so its schema is made once.
    expect(caseSchemaFor(withAllowlist)).toBe(caseSchemaFor(withAllowlist));

    const file = caseFile("user-rule.yaml", customCase);
    expect(loadCases(file, { rules: withAllowlist })[0]?.rules).toMatchObject({
      "bash-allowlist": { programs: ["ls", "cat"] },
    });
    let error: unknown;
    try {
      loadCases(file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CaseFileError);
    const issues = [...(error as CaseFileError).issues].sort((x, y) => (x.line ?? 0) - (y.line ?? 0));
    // Named under `rules` (line 4) and in expectedViolations (line 7): both are unknown to the default.
    expect(issues).toEqual([
      expect.objectContaining({
        file,
        line: 4,
        field: "rules.bash-allowlist",
        message: expect.stringMatching(/unknown field "bash-allowlist".*evals --rules <module>/),
      }),
      expect.objectContaining({ file, line: 7, field: "expectedViolations.0.rule" }),
    ]);
  });
});
