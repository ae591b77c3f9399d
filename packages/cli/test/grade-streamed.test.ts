import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { writeRunFolder } from "@evals/core";
import { fixturePrompts, fixturesDir } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { runEvals } from "./evals-bin.js";
import { tempDirs } from "./temp-dirs.js";

/**
 * `evals grade <stream.jsonl> --case <file>` grades a bare stream-json file while it reads it, and so
 * does `evals grade <run folder> --case <file>` for a folder whose run is that file; `evals grade <run
 * folder>` without --case grades the case the folder stores, reading the whole run first. All three
 * must print the same verdict, byte for byte (the folder's stream.jsonl is the source each time).
 */
const temp = tempDirs()("evals-grade-streamed-");

/** The real run's stream-json lines. */
const realLines = (name: string) =>
  readFileSync(join(fixturesDir, name, "stream.jsonl"), "utf8")
    .trimEnd()
    .split("\n");

/** A case file (JSON), and the case in it: a run folder's manifest stores the same value. */
function caseFile(
  name: string,
  value: Record<string, unknown>,
): { file: string; value: Record<string, unknown> } {
  const file = join(temp, `${name}.case.json`);
  writeFileSync(file, JSON.stringify(value));
  return { file, value };
}

const prompt = fixturePrompts("multi-tool")[0] as string;
/** Every rule, the opt-in ones too: every evaluator visits, nothing of the run is kept. */
const everyRuleCase = caseFile("every-rule", {
  id: "every-rule",
  prompt,
  rules: { "report-first": {}, "error-handling": {} },
});
/** Expectations that need the whole run (behavior, a trajectory), expected violations, severities. */
const expectationsCase = caseFile("expectations", {
  id: "expectations",
  prompt,
  behavior: { mustUseTools: ["Bash", "Read"], mustNotUseTools: ["Edit"] },
  expectedTrajectory: { mode: "ordered", calls: ["Bash", "Read"] },
  rules: {
    "report-first": { severity: "warning" },
    "stop-on-failure": { severity: { "continued-after-failure": "info" } },
  },
  expectedViolations: [
    { rule: "error-handling", shouldViolate: true },
    { rule: "read-before-write", shouldViolate: false },
  ],
});

/**
 * Writes `text` as a run folder's stream.jsonl, beside a manifest storing `stored` as the case the
 * harness ran (and its prompt, which stream-json does not echo); returns the folder and the file.
 */
function runFolder(
  name: string,
  text: string,
  stored: Record<string, unknown>,
): { folder: string; file: string } {
  const folder = join(temp, "test-output", name);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, "stream.jsonl");
  writeFileSync(file, text);
  writeRunFolder(folder, basename(folder), {
    agent: { prompts: [prompt] },
    case: { suite: "streamed", id: String(stored.id), trial: 0, trials: 1, value: stored },
  });
  return { folder, file };
}

/**
 * `evals grade --json` of the bare file and of its run folder with --case (both graded while read),
 * and of the folder's stored case (read whole).
 */
function gradedThreeWays(text: string, name: string, { file: caseJson, value }: ReturnType<typeof caseFile>) {
  const { folder, file } = runFolder(name, text, value);
  const streamed = runEvals(["grade", file, "--case", caseJson, "--json"]);
  const folderStreamed = runEvals(["grade", folder, "--case", caseJson, "--json"]);
  const whole = runEvals(["grade", folder, "--json"]);
  return { streamed, folderStreamed, whole };
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

describe("evals grade of a stream.jsonl, bare or a run folder's, prints what grading its whole run prints", () => {
  it.each(variants)(
    "%s",
    (what, text) => {
      const name = what.replace(/\W+/g, "-");
      for (const [caseName, evalCase] of [
        ["every-rule", everyRuleCase],
        ["expectations", expectationsCase],
      ] as const) {
        const { streamed, folderStreamed, whole } = gradedThreeWays(text, `${name}-${caseName}`, evalCase);
        for (const graded of [streamed, folderStreamed]) {
          expect(graded.stderr).toBe(whole.stderr);
          expect(graded.code).toBe(whole.code);
          expect(graded.stdout).toBe(whole.stdout);
        }
        expect([0, 1]).toContain(whole.code);
      }
    },
    120_000,
  );

  it("grades the reused id as the whole run pairs it: both calls with the later result", () => {
    const text = variants.find(([what]) => what.startsWith("a later call reusing"))?.[1] as string;
    const { streamed } = gradedThreeWays(text, "reused-id-check", everyRuleCase);
    const report = JSON.parse(streamed.stdout);
    const errorHandling = report.verdicts.find(
      (verdict: { evaluator: string }) => verdict.evaluator === "error-handling",
    );
    // The real run has 3 failures (the hook block, the missing file, the denied Write); `ls` took the missing file's error.
    expect(errorHandling.result.metadata.failures).toBe(4);
  }, 60_000);
});
