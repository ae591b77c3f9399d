import { packageTests } from "../../vitest.shared";

// The PostgreSQL server tests start one server per file: at most two files at once on a small machine.
export default packageTests({ testTimeout: 120_000, maxWorkers: 2 });
