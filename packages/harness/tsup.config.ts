import { defineConfig } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";

export default defineConfig(
  packageBuilds([
    // The library: ESM only (it imports execa), typed.
    packageBuild({ esmOnly: true, clean: ["!vitest.*"] }),
    // `@evals/harness/vitest` (describeEval, describeCases): its own entry, so the root loads no vitest.
    // Self-contained like the root (the engine has no module state they would need to share).
    { ...packageBuild({ entry: { vitest: "src/vitest.ts" }, esmOnly: true }), clean: false },
  ]),
);
