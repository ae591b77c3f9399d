import { packageTests } from "../../vitest.shared";

// The suite runs the built scripts and the real Gemini CLI (1-4 s a call on a quiet machine, far
// more on a busy one); tests that chain several calls get a generous safety net.
export default packageTests({ testTimeout: 180_000 });
