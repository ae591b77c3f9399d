import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixturePrompts, fixturesDir } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { runEvals } from "./evals-bin.js";
import { tempDirs } from "./temp-dirs.js";

/**
 * `evals grade <stream.jsonl>` grades a bare stream-json file while it reads it; `evals grade <run
 * folder>` holding the same file reads the whole run first. Both must print the same verdict, byte for
 * byte (the folder's stream.jsonl is the source either way).
 */
const temp = tempDirs()("evals-grade-streamed-");

/** The real run's stream-json lines. */
const realLines = (name: string) =>
  readFileSync(join(fixturesDir, name, "stream.jsonl"), "utf8")
    .trimEnd()
    .split("\n");

/** Every rule, the opt-in ones too: every evaluator visits, nothing of the run is kept. */
const everyRuleCase = join(temp, "every-rule.case.yaml");
writeFileSync(
  everyRuleCase,
  `id: every-rule\nprompt: ${JSON.stringify(fixturePrompts("multi-tool")[0])}\nrules: { report-first: {}, error-handling: {} }\n`,
);
/** Expectations that need the whole run (behavior, a trajectory), expected violations, severities. */
const expectationsCase = join(temp, "expectations.case.yaml");
writeFileSync(
  expectationsCase,
  [
    "id: expectations",
    `prompt: ${JSON.stringify(fixturePrompts("multi-tool")[0])}`,
    "behavior: { mustUseTools: [Bash, Read], mustNotUseTools: [Edit] }",
    "expectedTrajectory: { mode: ordered, calls: [Bash, Read] }",
    "rules: { report-first: { severity: warning }, stop-on-failure: { severity: { continued-after-failure: info } } }",
    "expectedViolations:",
    "  - { rule: error-handling, shouldViolate: true }",
    "  - { rule: read-before-write, shouldViolate: false }",
    "",
  ].join("\n"),
);

/** Writes `text` as a run folder's stream.jsonl; returns the folder and the file. */
function runFolder(name: string, text: string): { folder: string; file: string } {
  const folder = join(temp, "test-output", name);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, "stream.jsonl");
  writeFileSync(file, text);
  return { folder, file };
}

/** `evals grade --json` of the bare file (graded while read) and of its run folder (read whole). */
function gradedBothWays(text: string, name: string, caseFile: string) {
  const { folder, file } = runFolder(name, text);
  const streamed = runEvals(["grade", file, "--case", caseFile, "--json"]);
  const whole = runEvals(["grade", folder, "--case", caseFile, "--json"]);
  return { streamed, whole };
}

/** The real multi-tool run: Bash `ls` (lines 5-6), Read (7-8), a hook-blocked Bash (9-10), a Read of a missing file (11-12), a denied Write (13-15). */
const multiTool = realLines("multi-tool");

const variants: [string, string][] = [
  ["the real multi-tool run", `${multiTool.join("\n")}\n`],
  ["the real background-subagent run (two result lines)", `${realLines("background-subagent").join("\n")}\n`],
  [
    "parallel calls answered out of order, the hook block first",
    `${[...multiTool.slice(0, 6), multiTool[6], multiTool[8], multiTool[9], multiTool[7], ...multiTool.slice(10)].join("\n")}\n`,
  ],
  [
    "CRLF line ends and a cut-off last line (an interrupted run)",
    `${realLines("subagent").slice(0, -3).join("\r\n")}\r\n${realLines("subagent").at(-3)?.slice(0, 80)}`,
  ],
  [
    "a UTF-8 byte order mark before the first line (Windows PowerShell's Out-File)",
    `\uFEFF${multiTool.join("\r\n")}\r\n`,
  ],
  [
    "a result line whose cost is null and whose result is a number (not Claude Code's types)",
    `${multiTool.map((line) => (JSON.parse(line).type === "result" ? JSON.stringify({ ...JSON.parse(line), total_cost_usd: null, result: 5 }) : line)).join("\n")}\n`,
  ],
  [
    "a later call reusing the id of a call already graded",
    `${multiTool.map((line, n) => (n === 10 || n === 11 ? line.replaceAll("toolu_fake0011", "toolu_fake0002") : line)).join("\n")}\n`,
  ],
  [
    "a call answered a second time after it was graded",
    `${[...multiTool.slice(0, 8), multiTool[5]?.replace('"content":"a.txt\\nb.txt","is_error":false', '"content":"Error: ls failed","is_error":true'), ...multiTool.slice(8)].join("\n")}\n`,
  ],
];

describe("evals grade of a bare stream.jsonl prints what grading its whole run prints", () => {
  it.each(variants)(
    "%s",
    (what, text) => {
      const name = what.replace(/\W+/g, "-");
      for (const [caseName, caseFile] of [
        ["every-rule", everyRuleCase],
        ["expectations", expectationsCase],
      ] as const) {
        const { streamed, whole } = gradedBothWays(text, `${name}-${caseName}`, caseFile);
        expect(whole.stderr).toBe(streamed.stderr);
        expect(whole.code).toBe(streamed.code);
        expect([0, 1]).toContain(streamed.code);
        expect(streamed.stdout).toBe(whole.stdout);
      }
    },
    120_000,
  );

  it("grades the reused id as the whole run pairs it: both calls with the later result", () => {
    const text = variants.find(([what]) => what.startsWith("a later call reusing"))?.[1] as string;
    const { streamed } = gradedBothWays(text, "reused-id-check", everyRuleCase);
    const report = JSON.parse(streamed.stdout);
    const errorHandling = report.verdicts.find(
      (verdict: { evaluator: string }) => verdict.evaluator === "error-handling",
    );
    // The real run has 3 failures (the hook block, the missing file, the denied Write); `ls` took the missing file's error.
    expect(errorHandling.result.metadata.failures).toBe(4);
  }, 60_000);
});
