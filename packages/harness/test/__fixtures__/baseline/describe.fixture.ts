import { resolve } from "node:path";
import { claudeCodeRunner } from "@evals/claude-code";
import { describeCases } from "../../../src/vitest.js";
// @ts-expect-error: a plain ES module of the fixture, without types
import houseRuleModel from "./models.mjs";

const claudeBin = resolve(__dirname, "../../../../../node_modules/.bin/claude");
const scratch = process.env.EVALS_TEST_OUTPUT_ROOT as string;

// The suite runs with the house rule; its baseline runs one of its cases again without it, and is
// compared with the suite's own runs of that case.
describeCases("notes baseline", {
  cases: [resolve(__dirname, "notes.yaml"), resolve(__dirname, "more-notes.yaml")],
  runAgent: {
    options: { claudeBin, appendSystemPrompt: "House rule: look at the files with Bash before you answer." },
  },
  baseline: {
    name: "plain",
    cases: ["lists-the-notes"],
    against: "house-rule",
    runAgent: { options: { appendSystemPrompt: undefined } },
  },
  // One scripted model for both: it follows the house rule only when the system prompt has one.
  model: () => houseRuleModel,
  cassette: { dir: resolve(scratch, "cassettes") },
  variantsDir: resolve(scratch, "comparison"),
  agent: claudeCodeRunner,
  requiresAgent: true,
  trials: 2,
  outputRoot: scratch,
});
