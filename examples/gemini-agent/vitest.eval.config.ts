import { packageEvals } from "../../vitest.shared";

export default packageEvals();
