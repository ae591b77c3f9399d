import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  apiError,
  type ModelReply,
  reply,
  type ScriptFunction,
  scripted,
  stall,
  startModelServer,
  text,
  toolUse,
} from "@evals/vcr";
import { afterAll, describe, expect, it } from "vitest";
import { rubricJudge } from "../src/index.js";
import type { JudgeMetadata } from "../src/judge-scorer.js";
import { realRun } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "judge-failures-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Scores the real run with a judge model that answers with `script`, recording into a fresh folder. */
async function judgeWith(script: ScriptFunction, options: { timeoutMs?: number } = {}) {
  const server = await startModelServer({ source: scripted(script) });
  const recordingDir = mkdtempSync(join(dir, "case-"));
  try {
    const judge = rubricJudge({
      baseURL: server.url,
      recording: { mode: "record", dir: recordingDir },
      criteria: ['Says "done"'],
      maxRetries: 0,
      ...options,
    });
    const result = await judge.score({ run: realRun(), case: { id: "failing-judge" } });
    const metadata = result.metadata.judge as JudgeMetadata;
    return { result, metadata, recorded: existsSync(join(recordingDir, "judge")) };
  } finally {
    await server.close();
  }
}

function verdictCall(input: Record<string, unknown>): ModelReply {
  return reply(toolUse("record_rubric_verdict", input));
}

describe("a judge reply that is not a verdict fails the scorer with the reason, never passes", () => {
  it("a verdict with a field of the wrong type is malformed", async () => {
    const { result, metadata, recorded } = await judgeWith(() =>
      verdictCall({ criteria: [{ criterion: 1, met: "yes", reasoning: "it says done" }], summary: "ok" }),
    );
    expect(result).toMatchObject({ passed: false, score: 0 });
    expect(result.violations).toEqual([
      expect.objectContaining({ rule: "rubric", type: "judge-malformed", severity: "error" }),
    ]);
    expect(result.violations[0]!.message).toContain("criteria.0.met");
    expect(metadata.failure?.kind).toBe("malformed");
    // A failed judge call is not kept: the next run asks again instead of replaying a bad answer.
    expect(recorded).toBe(false);
  });

  it("a verdict that skips a criterion is malformed", async () => {
    const { result } = await judgeWith(() => verdictCall({ criteria: [], summary: "nothing to say" }));
    expect(result.passed).toBe(false);
    expect(result.violations[0]!.message).toContain("covers criteria [], but the rubric has [1]");
  });

  it("plain text instead of the verdict tool is malformed", async () => {
    const { result } = await judgeWith(() => reply(text("Looks good to me!")));
    expect(result.passed).toBe(false);
    expect(result.violations[0]!.type).toBe("judge-malformed");
    expect(result.violations[0]!.message).toContain(
      'gave no verdict (no record_rubric_verdict call); it said: "Looks good to me!"',
    );
  });

  it("a refusal (stop_reason refusal, or a refusal in words) is a refusal", async () => {
    const stopped = await judgeWith(() => ({
      kind: "message",
      content: [text("No.")],
      stop_reason: "refusal",
    }));
    expect(stopped.result.passed).toBe(false);
    expect(stopped.result.violations[0]!.type).toBe("judge-refused");
    expect(stopped.result.violations[0]!.message).toContain('stop_reason "refusal"');

    const worded = await judgeWith(() => reply(text("I can't help with grading this.")));
    expect(worded.result.violations[0]!.type).toBe("judge-refused");
  });

  it("a verdict cut off at max_tokens is malformed", async () => {
    const { result } = await judgeWith(() => ({
      kind: "message",
      content: [toolUse("record_rubric_verdict", { criteria: [] })],
      stop_reason: "max_tokens",
    }));
    expect(result.violations[0]!.type).toBe("judge-malformed");
    expect(result.violations[0]!.message).toContain("cut off at max_tokens");
  });

  it("an API error names the status and the API's message", async () => {
    const { result } = await judgeWith(() => apiError(529, "Overloaded"));
    expect(result.passed).toBe(false);
    expect(result.violations[0]!.type).toBe("judge-api-error");
    expect(result.violations[0]!.message).toContain("HTTP 529: Overloaded");
  });

  it("a judge model that never answers times out", async () => {
    const { result, metadata, recorded } = await judgeWith((_request, context) => stall(context), {
      timeoutMs: 500,
    });
    expect(result).toMatchObject({ passed: false, score: 0 });
    expect(result.violations[0]!.type).toBe("judge-timeout");
    expect(result.violations[0]!.message).toContain("did not answer within 500 ms");
    expect(metadata.failure?.kind).toBe("timeout");
    expect(recorded).toBe(false);
  });

  it("a strict replay with no recording at all says how to record one", async () => {
    const judge = rubricJudge({
      recording: { mode: "strict", dir: join(dir, "empty") },
      criteria: ['Says "done"'],
    });
    const result = await judge.score({ run: realRun(), case: { id: "never-recorded" } });
    expect(result.passed).toBe(false);
    expect(result.violations[0]!.type).toBe("judge-no-recording");
    expect(result.violations[0]!.message).toContain(
      "No verdict of this judge was recorded for this case yet",
    );
    expect(result.violations[0]!.message).toContain("VCR_MODE=record");
  });
});
