import { packageTests } from "../../vitest.shared";

// Creating an embedded database runs initdb in WebAssembly (a minute on a loaded 2-core machine), a
// file starts Chromium or a PostgreSQL server: generous timeouts, one file at a time.
export default packageTests({ testTimeout: 600_000, maxWorkers: 1 });
