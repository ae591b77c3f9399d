import { packageEvals } from "../../vitest.shared";

// Layer 2 (skill invocation) and layer 3 (workflows): the real claude CLI with this plugin, the real
// scripts and the real Gemini CLI, both models replayed or scripted on 127.0.0.1 (see evals/README.md).
export default packageEvals({ include: ["evals/**/*.eval.ts"], testTimeout: 300_000 });
