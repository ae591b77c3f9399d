import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeCodeRunner } from "@evals/claude-code";
import { parseCase } from "@evals/evaluators";
import { buildResults, type CaseResult, caseResult, compareResults } from "@evals/logging";
import { notesVariantsDir } from "@evals/test-kit/notes-variants";
import { afterAll, describe, expect, it } from "vitest";
import { comparisonVerdict, loadVariants, RunnerRegistry } from "../src/index.js";
import { checkVariants, VariantsFileError, variantCase, variantsJsonSchema } from "../src/variants.js";

const scratch = mkdtempSync(join(tmpdir(), "harness-variants-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function variantsFile(text: string): string {
  const file = join(scratch, `v${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  return file;
}

describe("variants files", () => {
  it("reads two variants, their agent paths made absolute against the file", () => {
    const [a, b] = loadVariants(join(notesVariantsDir, "variants.yaml"));
    expect(a).toMatchObject({ name: "plain", mustPass: false });
    expect(b.agent?.options?.appendSystemPrompt).toContain("House rule");
    const file = variantsFile(
      "version: 1\nvariants:\n  - name: off\n  - name: on\n    agent: { fixture: ./project, options: { pluginDirs: [./plugin], settings: hooks.json, systemPrompt: hi } }\n",
    );
    // The path options of the registered runners resolve against the variants file.
    const [, on] = loadVariants(file, new RunnerRegistry([claudeCodeRunner]));
    expect(on.agent?.fixture).toBe(join(scratch, "project"));
    expect(on.agent?.options).toEqual({
      pluginDirs: [join(scratch, "plugin")],
      settings: join(scratch, "hooks.json"),
      systemPrompt: "hi",
    });
  });

  it("says what is wrong and where: file, line, field", () => {
    const bad = (text: string) => {
      try {
        loadVariants(variantsFile(text));
      } catch (error) {
        expect(error).toBeInstanceOf(VariantsFileError);
        return (error as Error).message;
      }
      throw new Error("no error");
    };
    expect(
      bad("version: 1\nvariants:\n  - name: off\n  - name: on\n    agent: { maxTurns: many }\n"),
    ).toMatch(/\.yaml:5:\d+ \(field variants\.1\.agent\.maxTurns\): .*number/);
    expect(bad("version: 1\nvariants:\n  - name: only\n")).toContain("exactly two variants");
    expect(bad("version: 2\nvariants: []\n")).toMatch(/:1:\d+ \(field version\)/);
    expect(bad("version: 1\nvariants:\n  - name: Same Name\n  - name: b\n")).toMatch(
      /:3:\d+ \(field variants\.0\.name\): a variant name/,
    );
    expect(bad("version: 1\nvariants:\n  - name: same\n  - name: same\n")).toContain("different names");
    expect(bad("version: 1\nvariants: [\n")).toContain("invalid YAML");
  });

  it("has its JSON Schema committed (schemas/variants.json), generated from the zod schema", () => {
    const committed = JSON.parse(
      readFileSync(fileURLToPath(new URL("../schemas/variants.json", import.meta.url)), "utf8"),
    );
    expect(committed).toEqual(variantsJsonSchema());
  });

  it("checks variants given in code", () => {
    expect(() => checkVariants([{ name: "a" }])).toThrow("exactly two variants");
    expect(() => checkVariants([{ name: "a" }, { name: "a" }])).toThrow("both named");
    expect(() => checkVariants([{ name: "a" }, { name: "B b" }])).toThrow("is not a variant name");
  });

  it("lays the variant's agent options over the case's, env merged", () => {
    const evalCase = parseCase({ id: "c", prompt: "hi", agent: { maxTurns: 3, env: { A: "1", B: "1" } } });
    const changed = variantCase(evalCase, {
      name: "v",
      agent: { env: { B: "2" }, options: { appendSystemPrompt: "rule" } },
    });
    expect(changed.agent).toEqual({
      maxTurns: 3,
      env: { A: "1", B: "2" },
      options: { appendSystemPrompt: "rule" },
    });
    expect(evalCase.agent.options).toBeUndefined();
  });
});

describe("the verdict in words", () => {
  const results = (passed: boolean[][]) =>
    buildResults(
      passed.map(
        (trials, index): CaseResult =>
          caseResult({
            id: `case-${index}`,
            name: `case ${index}`,
            suite: "s",
            trials: trials.map((ok, trial) => ({
              trial,
              status: ok ? "passed" : "failed",
              scores: [],
              violations: [],
            })),
          }),
      ),
      { suite: "s", meta: { git_commit: "0000000" } },
    );

  it("says plainly when the difference is within noise", () => {
    const comparison = compareResults(results([[false]]), results([[true]]), { labels: ["off", "on"] });
    expect(comparison.overall.difference.verdict).toBe("within noise");
    expect(comparisonVerdict(comparison)).toBe(
      "on − off overall: +100% [−12…+100] over 1 case(s) (1 trial(s) of off, 1 of on): within noise: these trials cannot tell on from off apart (the 95% interval contains 0); run more trials to decide.",
    );
  });

  it("names the better side when the interval excludes 0, and the cases within noise on their own", () => {
    const comparison = compareResults(
      results([[false, false, false], [false]]),
      results([[true, true, true], [true]]),
      { labels: ["off", "on"] },
    );
    expect(comparison.overall.difference.verdict).toBe("better");
    const words = comparisonVerdict(comparison);
    expect(words).toContain("on passes more often than off (the 95% interval excludes 0).");
    expect(words).toContain("1 of 2 case(s) on their own are within noise: case-1.");
  });
});
