/**
 * `@evals/logging/reporter`: the vitest reporter as a default export, so a config can name it:
 * `reporters: ["default", ["@evals/logging/reporter", { html: true }]]`.
 */
import { EvalReporter } from "./vitest-reporter.js";

export { CaseShardSequencer } from "./case-shard-sequencer.js";
export type { EvalReporterOptions } from "./vitest-reporter.js";
export { EvalReporter };
export default EvalReporter;
