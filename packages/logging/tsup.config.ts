import { defineConfig, type Options } from "tsup";
import { packageBuild, packageBuilds } from "../../tsup.shared";
import { reportClientDefine } from "./scripts/report-client-bundle";

// Three entries: the library, `@evals/logging/reporter` (a default export vitest can load by name),
// and `@evals/logging/stats` (the Wilson band and percentages, without zod).
// The HTML report's browser script (src/report-client) is bundled first and inlined as a string.
export default defineConfig(async (cli: Options) => {
  const configs = packageBuilds([
    packageBuild({
      entry: ["src/index.ts", "src/reporter.ts", "src/stats.ts"],
      define: isDtsOnly(cli) ? {} : await reportClientDefine(),
    }),
  ]);
  return configs(cli);
});

function isDtsOnly(cli: Options): boolean {
  return typeof cli.dts === "object" && cli.dts.only === true;
}
