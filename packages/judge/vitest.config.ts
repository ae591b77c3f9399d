import { packageTests } from "../../vitest.shared";

export default packageTests({ testTimeout: 60_000 });
