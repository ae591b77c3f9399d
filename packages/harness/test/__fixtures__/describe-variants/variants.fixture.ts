import { resolve } from "node:path";
import { claudeCodeRunner } from "@evals/claude-code";
import { houseRuleModel, notesVariantsDir } from "@evals/test-kit/notes-variants";
import { describeCases } from "../../../src/vitest.js";

const claudeBin = resolve(__dirname, "../../../../../node_modules/.bin/claude");
const scratch = process.env.EVALS_TEST_OUTPUT_ROOT as string;

describeCases("notes variants", {
  cases: resolve(notesVariantsDir, "notes.yaml"),
  variants: [
    { name: "plain", mustPass: false },
    {
      name: "house-rule",
      agent: { options: { appendSystemPrompt: "House rule: look at the files with Bash before you answer." } },
    },
  ],
  // One scripted model for both: it follows the house rule only when the system prompt has one.
  model: () => houseRuleModel,
  cassette: { dir: resolve(scratch, "cassettes") },
  variantsDir: resolve(scratch, "comparison"),
  runAgent: { options: { claudeBin } },
  agent: claudeCodeRunner,
  requiresAgent: true,
  trials: 2,
  outputRoot: scratch,
});
