import { resolve } from "node:path";
import { claudeCodeRunner } from "@evals/claude-code";
import { describeCases } from "../../../src/vitest.js";

// A baseline that names a case the suite does not have: the suite must say so, not compare nothing.
describeCases("notes baseline typo", {
  cases: resolve(__dirname, "notes.yaml"),
  baseline: { name: "plain", cases: ["lists-the-note"] },
  agent: claudeCodeRunner,
});
