import { packageTests } from "../../vitest.shared";

// Creating an embedded database runs initdb in WebAssembly (a minute on a loaded 2-core machine), and a
// file starts a PostgreSQL server: generous timeouts, at most two files at once.
export default packageTests({ testTimeout: 300_000, maxWorkers: 2 });
