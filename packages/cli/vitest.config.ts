import { packageTests } from "../../vitest.shared";

// Many tests run the real claude CLI several times (record, replay, grade): on a loaded CI machine
// one such test can take a minute.
export default packageTests({ testTimeout: 120_000 });
