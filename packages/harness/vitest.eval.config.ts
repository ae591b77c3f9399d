import { fileURLToPath } from "node:url";
import { mergeConfig } from "vitest/config";
import { packageEvals } from "../../vitest.shared";

// The suite imports describeEval from the source (typed without a build); it runs the built
// dist/vitest.js instead, as every other eval suite loads @evals/harness/vitest: Vite would
// transform the harness's source module by module (~1 s of CPU more). The eval target builds it first.
export default mergeConfig(packageEvals(), {
  resolve: {
    alias: [
      {
        find: /^\.\.\/src\/vitest\.js$/,
        replacement: fileURLToPath(new URL("./dist/vitest.js", import.meta.url)),
      },
    ],
  },
});
