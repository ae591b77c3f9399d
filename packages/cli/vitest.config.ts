import { packageTests } from "../../vitest.shared";

// Many tests run the real claude CLI several times (record, replay, grade): on a loaded CI machine
// one such test can take a minute. Two files at once: vitest's default on 2 cores is one worker,
// which left a core idle while each file waited on its CLI runs; this suite is the longest task of
// `npm test` and runs last. Alone on 2 cores it took 885 s with two workers (1.9 cores busy).
export default packageTests({ testTimeout: 120_000, maxWorkers: 2 });
