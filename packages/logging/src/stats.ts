// `@evals/logging/stats`: the pass-rate band and its formatting, without the rest of the package
// (whose schemas load zod): for a command that must start fast, such as `evals history`.
export { formatPercent } from "./format.js";
export { wilsonInterval } from "./trial-stats.js";
