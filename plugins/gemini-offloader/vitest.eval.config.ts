import { mergeConfig } from "vitest/config";
import { packageEvals } from "../../vitest.shared";

// Layer 2 (skill invocation) and layer 3 (workflows): the real claude CLI with this plugin, the real
// scripts and the real Gemini CLI, both models replayed or scripted on 127.0.0.1 (see evals/README.md).
// A case mostly waits on CLIs starting and answering, so two cases of a suite run at a time.
export default mergeConfig(packageEvals({ include: ["evals/**/*.eval.ts"], testTimeout: 300_000 }), {
  test: { sequence: { concurrent: true }, maxConcurrency: 2 },
});
