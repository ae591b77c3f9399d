import { packageTests } from "../../vitest.shared";

// The suite runs the built scripts and the real Gemini CLI (1-4 s a call): generous per-test time.
export default packageTests({ testTimeout: 60_000 });
