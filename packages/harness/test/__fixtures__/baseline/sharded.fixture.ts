import { resolve } from "node:path";
import { claudeCodeRunner } from "@evals/claude-code";
import { describeCases } from "../../../src/vitest.js";
// @ts-expect-error: a plain ES module of the fixture, without types
import houseRuleModel from "./models.mjs";

const claudeBin = resolve(__dirname, "../../../../../node_modules/.bin/claude");
const scratch = process.env.EVALS_TEST_OUTPUT_ROOT as string;

// Run in two shards (EVALS_SHARD): the suite's two cases fall one to each shard, and so do the
// baseline's runs of them. The comparison goes where describeCases puts it under a shard.
describeCases("notes baseline shards", {
  cases: [resolve(__dirname, "notes.yaml"), resolve(__dirname, "more-notes.yaml")],
  runAgent: {
    options: { claudeBin, appendSystemPrompt: "House rule: look at the files with Bash before you answer." },
  },
  baseline: { name: "plain", against: "house-rule", runAgent: { options: { appendSystemPrompt: undefined } } },
  model: () => houseRuleModel,
  agent: claudeCodeRunner,
  requiresAgent: true,
  outputRoot: scratch,
});
