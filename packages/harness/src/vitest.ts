// @evals/harness/vitest: declare eval suites as vitest tests. Apart from the root export, so that
// importing the engine (runCases, runTrial ...) loads no vitest.
export { type DescribeCasesOptions, describeCases, type SuiteBaseline } from "./describe-cases.js";
export { type DescribeEvalOptions, describeEval } from "./describe-eval.js";
