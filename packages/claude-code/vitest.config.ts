import { packageTests } from "../../vitest.shared";

// The runAgent tests run the real claude CLI: on a loaded CI machine one can take a minute.
export default packageTests({ testTimeout: 120_000 });
