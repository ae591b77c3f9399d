import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EvaluatorResult } from "@evals/core";
import { type ModelServer, scripted, startModelServer } from "@evals/vcr";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rubricJudge } from "../src/index.js";
import type { JudgeMetadata } from "../src/judge-scorer.js";
import { keywordJudge, PROMPT, realRun, startTrap, withAnswer } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "judge-rubric-"));
let judgeModel: ModelServer;
const savedKey = process.env.ANTHROPIC_API_KEY;

beforeAll(async () => {
  judgeModel = await startModelServer({ source: scripted(keywordJudge) });
});
afterAll(async () => {
  await judgeModel.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  if (savedKey === undefined) delete process.env.ANTHROPIC_API_KEY;
  else process.env.ANTHROPIC_API_KEY = savedKey;
});

const testCase = {
  id: "checklist",
  input: PROMPT,
  judge: { rubric: ['Says "done"', 'Mentions the "checklist"'] },
};

/** The verdict without how it was obtained (recorded or replayed). */
function verdict(result: EvaluatorResult) {
  const { recording: _, ...judge } = result.metadata.judge as JudgeMetadata;
  return { ...result, metadata: { judge } };
}

describe("the rubric judge against a scripted judge model", () => {
  it("records a verdict with the reasoning per criterion, then replays it offline without a key, the same 100 times of 100", async () => {
    const recordingDir = join(dir, "replay-100");
    const recorder = rubricJudge({
      baseURL: judgeModel.url,
      recording: { mode: "record", dir: recordingDir },
    });
    const recorded = await recorder.score({ run: realRun(), case: testCase });

    // "All steps done." says done but never mentions the checklist: 1 of 2 criteria, and all are needed.
    expect(recorded.passed).toBe(false);
    expect(recorded.score).toBe(0.5);
    expect(recorder.threshold).toBe(1);
    expect(recorded.violations[0]).toMatchObject({
      rule: "rubric",
      type: "criterion-not-met",
      severity: "error",
      message: 'criterion 2 not met: "Mentions the "checklist"": the answer never says "checklist"',
    });
    expect(recorded.violations.find((v) => v.type === "criterion-met")?.message).toBe(
      'criterion 1 met: "Says "done"": the answer says "done"',
    );
    const use = (recorded.metadata.judge as JudgeMetadata).recording!;
    expect(use.action).toBe("record");
    expect(existsSync(use.file!)).toBe(true);
    expect(use.file).toMatch(/judge[/\\]checklist\.rubric\.[0-9a-f]{8}\.recording\.json$/);

    // CI: strict, no key, and the upstream is a trap that counts every connection.
    delete process.env.ANTHROPIC_API_KEY;
    const trap = await startTrap();
    try {
      const replayer = rubricJudge({ baseURL: trap.url, recording: { mode: "strict", dir: recordingDir } });
      const results: EvaluatorResult[] = [];
      for (let time = 0; time < 100; time++)
        results.push(await replayer.score({ run: realRun(), case: testCase }));
      for (const result of results) {
        expect((result.metadata.judge as JudgeMetadata).recording?.action).toBe("replay");
        expect(verdict(result)).toEqual(verdict(recorded));
      }
      expect(trap.connections).toEqual([]);
    } finally {
      await trap.close();
    }
  });

  it("does not replay a verdict for a changed rubric or answer: it says what changed", async () => {
    const recordingDir = join(dir, "changes");
    await rubricJudge({ baseURL: judgeModel.url, recording: { mode: "record", dir: recordingDir } }).score({
      run: realRun(),
      case: testCase,
    });
    delete process.env.ANTHROPIC_API_KEY;
    const strict = rubricJudge({ recording: { mode: "strict", dir: recordingDir } });

    const changedRubric = { ...testCase, judge: { rubric: ['Says "done"', 'Mentions the "steps"'] } };
    const rubricResult = await strict.score({ run: realRun(), case: changedRubric });
    expect(rubricResult.passed).toBe(false);
    expect(rubricResult.score).toBe(0);
    expect(rubricResult.violations).toHaveLength(1);
    expect(rubricResult.violations[0]!.type).toBe("judge-no-recording");
    expect(rubricResult.violations[0]!.message).toContain(
      'criteria[1]: recorded "Mentions the \\"checklist\\"", got "Mentions the \\"steps\\""',
    );

    const answerResult = await strict.score({
      run: withAnswer(realRun(), "All three steps are done."),
      case: testCase,
    });
    expect(answerResult.passed).toBe(false);
    expect(answerResult.violations[0]!.message).toContain(
      'answer: recorded "All steps done.", got "All three steps are done."',
    );
    // In auto mode without a key, the same: no silent re-use, no live call.
    const auto = rubricJudge({ recording: { mode: "auto", dir: recordingDir } });
    const autoResult = await auto.score({ run: realRun(), case: changedRubric });
    expect(autoResult.passed).toBe(false);
    expect(autoResult.violations[0]!.message).toContain("criteria[1]: recorded");
    expect(autoResult.violations[0]!.message).toContain("ANTHROPIC_API_KEY");
  });

  it("takes its criteria from the scorer's options, and fails clearly when there are none", async () => {
    const judge = rubricJudge({ baseURL: judgeModel.url, recording: false, criteria: ['Says "done"'] });
    const result = await judge.score({ run: realRun() });
    expect(result).toMatchObject({ passed: true, score: 1 });

    const none = await rubricJudge({ baseURL: judgeModel.url, recording: false }).score({ run: realRun() });
    expect(none.passed).toBe(false);
    expect(none.violations[0]).toMatchObject({ type: "judge-no-input", severity: "error" });
    expect(none.violations[0]!.message).toContain("judge.rubric");
  });

  it("masks the run's working directory, so a replay in another folder still matches", async () => {
    const recordingDir = join(dir, "cwd");
    const run = { ...realRun(), cwd: "/tmp/first-run" };
    const judge = (mode: "record" | "strict", baseURL?: string) =>
      rubricJudge({
        ...(baseURL ? { baseURL } : {}),
        recording: { mode, dir: recordingDir },
        criteria: ['Says "done"'],
      });
    await judge("record", judgeModel.url).score({ run: withAnswer(run, "done in /tmp/first-run/out.txt") });
    const other = { ...realRun(), cwd: "/tmp/second-run" };
    const replayed = await judge("strict").score({
      run: withAnswer(other, "done in /tmp/second-run/out.txt"),
    });
    expect(replayed.passed).toBe(true);
    expect(readdirSync(join(recordingDir, "judge"))).toHaveLength(1);
  });
});
