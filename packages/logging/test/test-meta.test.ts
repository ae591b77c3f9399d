import { describe, expect, test } from "vitest";
import { caseResult, type EvalTestMeta, EvalTestMetaSchema } from "../src/index.js";

// The augmentation the README tells harness authors to write: task.meta.evalCase is then typed.
declare module "vitest" {
  interface TaskMeta extends Partial<EvalTestMeta> {}
}

describe("task.meta.evalCase", () => {
  test("is typed by the TaskMeta augmentation and valid for the reporter", ({ task }) => {
    task.meta.evalCase = caseResult({
      id: "typed",
      name: "typed",
      trials: [{ status: "passed", scores: [{ scorer: "s", score: 1, passed: true }] }],
    });
    expect(EvalTestMetaSchema.parse({ evalCase: task.meta.evalCase }).evalCase.status).toBe("passed");
  });
});
