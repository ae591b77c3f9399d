import { packageTests } from "../../vitest.shared";

export default packageTests({ testTimeout: 180_000 });
