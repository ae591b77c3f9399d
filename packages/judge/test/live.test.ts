import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rubricJudge } from "../src/index.js";
import type { JudgeMetadata } from "../src/judge-scorer.js";
import { realRun } from "./helpers.js";

// Opt-in: grades a real run with the real judge model, records the verdict, then replays it offline.
// Runs only with ANTHROPIC_API_KEY set and VCR_MODE=record (it costs a fraction of a cent);
// EVAL_JUDGE_MODEL picks the model.
const live = Boolean(process.env.ANTHROPIC_API_KEY) && process.env.VCR_MODE === "record";

describe.skipIf(!live)("a live judge (ANTHROPIC_API_KEY and VCR_MODE=record)", () => {
  it("records the real model's verdict without the key, and replays it offline", async () => {
    const dir = mkdtempSync(join(tmpdir(), "judge-live-"));
    const criteria = ["Says that the steps are done", "Is written in French"];
    try {
      const recorded = await rubricJudge({ recording: { mode: "record", dir }, criteria }).score({
        run: realRun(),
      });
      const use = (recorded.metadata.judge as JudgeMetadata).recording!;
      expect(use.action).toBe("record");
      expect(readFileSync(use.file!, "utf8")).not.toContain(process.env.ANTHROPIC_API_KEY!);
      // "All steps done." is done, and not French.
      expect(recorded.score).toBe(0.5);

      const replayed = await rubricJudge({
        recording: { mode: "strict", dir },
        criteria,
        apiKey: "none",
      }).score({
        run: realRun(),
      });
      expect((replayed.metadata.judge as JudgeMetadata).recording?.action).toBe("replay");
      expect(replayed.violations).toEqual(recorded.violations);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
