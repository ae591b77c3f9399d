import { mergeConfig } from "vitest/config";
import { packageTests } from "../../vitest.shared";
import { reportClientDefine } from "./scripts/report-client-bundle";

// The tests import src/: they get the report's browser script bundled as the build bundles it.
export default mergeConfig(packageTests(), { define: await reportClientDefine() });
