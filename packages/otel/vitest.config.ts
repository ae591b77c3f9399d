import { packageTests } from "../../vitest.shared";

export default packageTests({ testTimeout: 120_000 });
