// A suite as a user writes one: describeEval runs the real claude CLI against a scripted agent
// model, and the rubric judge (on with EVAL_LLM_JUDGE=1) grades the answer. The judge's verdicts are
// recorded in JUDGE_DIR (from the judge model at JUDGE_UPSTREAM), or replayed from it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeCodeRunner } from "@evals/claude-code";
import { describeEval } from "@evals/harness/vitest";
import { reply, scripted, text } from "@evals/vcr";
import { afterAll } from "vitest";

const projects = mkdtempSync(join(tmpdir(), "judged-suite-"));
afterAll(() => rmSync(projects, { recursive: true, force: true }));

describeEval("judged suite", {
  data: [
    {
      id: "checklist",
      input: "Run the checklist and tell me when you are done.",
      judge: { rubric: ['Says "done"', 'Mentions the "checklist"', 'Mentions "coffee"'] },
    },
  ],
  task: (prompt, { runAgent }) => runAgent({ prompt, cwd: mkdtempSync(join(projects, "project-")), maxTurns: 2 }),
  scorers: [],
  model: () => scripted(() => reply(text("All steps done. The checklist is complete."))),
  agent: claudeCodeRunner,
  requiresAgent: true,
  judge: async () => {
    const { rubricJudge } = await import("@evals/judge");
    return rubricJudge({
      threshold: 2 / 3,
      recording: { dir: process.env.JUDGE_DIR! },
      ...(process.env.JUDGE_UPSTREAM ? { baseURL: process.env.JUDGE_UPSTREAM } : {}),
    });
  },
});
