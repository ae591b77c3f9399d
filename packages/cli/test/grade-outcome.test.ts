import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUN_FOLDER_FILES, writeRunFolder } from "@evals/core";
import { fixturesDir } from "@evals/test-kit/claude-fixtures";
import { afterAll, describe, expect, it } from "vitest";
import { runEvals } from "./evals-bin.js";

const temp = mkdtempSync(join(tmpdir(), "evals-grade-outcome-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function grade(...args: string[]) {
  return runEvals(["grade", ...args]);
}

function caseFile(name: string, lines: string[]): string {
  const file = join(temp, `${name}.case.yaml`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/** A run folder holding only a stream.jsonl. */
function runFolder(name: string, stream: string): string {
  const dir = join(temp, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "stream.jsonl"), stream);
  return dir;
}

const stream = (fixture: string) => readFileSync(`${fixturesDir}${fixture}/stream.jsonl`, "utf8");

describe("evals grade judges the run's outcome (real 2.1.330 runs)", () => {
  it("fails a stored run that ended in an API error, on a case that asserts nothing", () => {
    const quiet = caseFile("quiet", ["id: quiet", "prompt: api400"]);
    const { code, stdout } = grade(runFolder("api-error", stream("api-error")), "--case", quiet);
    expect(code).toBe(1);
    expect(stdout).toContain("the API returned HTTP 400 (invalid_request_error)");
  });

  it("fails a bare stream without a result line", () => {
    const cut = stream("multi-tool")
      .split("\n")
      .filter((line) => !line.startsWith('{"type":"result"') && !line.includes('"type":"result"'))
      .join("\n");
    const quiet = caseFile("quiet-cut", [
      "id: quiet-cut",
      "prompt: do the steps",
      "rules: { stop-on-failure: false }",
    ]);
    const { code, stdout } = grade(runFolder("cut", cut), "--case", quiet);
    expect(code).toBe(1);
    expect(stdout).toContain("claude ended without writing a result line");
  });

  it("passes a run that stopped at max turns when the case expects it", () => {
    const expects = caseFile("stops", ["id: stops", "prompt: maxturns", "outcome: max_turns"]);
    const folder = runFolder("max-turns", stream("max-turns"));
    const { code, stdout } = grade(folder, "--case", expects);
    expect(code, stdout).toBe(0);
    const quiet = caseFile("quiet-turns", ["id: quiet-turns", "prompt: maxturns"]);
    expect(grade(folder, "--case", quiet).code).toBe(1);
  });
});

describe("evals grade on a harness run folder whose case is not an @evals/evaluators case", () => {
  it("names the manifest that holds the case, and says what the harness's verdict was", () => {
    // describeEval with its own data and scorer functions: the case cannot be graded again alone.
    const folder = runFolder("plain-case", stream("max-turns"));
    writeRunFolder(folder, "plain-case", {
      case: {
        suite: "manual",
        id: "max-turns",
        trial: 0,
        trials: 1,
        value: { input: "loop forever", name: "max turns" },
        grading: {
          outcome: "success",
          scorers: [{ name: "outcome" }, { name: "my-scorer" }],
          verdict: {
            status: "failed",
            scores: [
              { scorer: "outcome", score: 0, passed: false },
              { scorer: "my-scorer", score: 1, passed: true },
            ],
          },
        },
      },
    });
    const { code, stdout, stderr } = grade(folder);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(`the case stored in ${join(folder, RUN_FOLDER_FILES.manifest)}`);
    expect(stderr).not.toContain("result.json");
    expect(stderr).toContain(
      "The harness's verdict on this run: FAILED (outcome 0.00 failed, my-scorer 1.00 passed)",
    );
  });
});
