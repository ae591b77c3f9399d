import { packageTests } from "../vitest.shared";

export default packageTests({ testTimeout: 300_000 });
