import type { EvalCase } from "@evals/evaluators";
import { type DescribeEvalOptions, defineEvalSuite } from "./describe-eval.js";
import { type CaseList, type CaseSuiteOptions, caseSettingsOf, loadCaseList } from "./run-case.js";

/** Options of describeCases: the cases, and describeEval's options, each with a default for cases. */
export interface DescribeCasesOptions
  extends CaseSuiteOptions,
    Omit<DescribeEvalOptions<EvalCase>, "data" | "task" | "scorers" | "model" | "cassette" | "worktree"> {
  /** Case files or folders of them (relative to the current folder), or cases; or a function giving them. */
  cases: CaseList | (() => CaseList | Promise<CaseList>);
}

/**
 * A describeEval over case files: one test per case, each trial the real `claude` CLI with the
 * case's prompt(s) and `agent` options in a fresh copy of its fixture (runCase), judged by the case's
 * own rules, expectations and expected violations (scorersForCase) unless `scorers` says otherwise.
 *
 * ```ts
 * describeCases("edits", {
 *   cases: "cases/edits.yaml",
 *   model: agents,          // scripted models by case id: what `cassette` records
 *   cassette: true,         // cassettes/edits/<case id>.<hash>.recording.json, replayed afterwards
 *   trials: 3,
 * });
 * ```
 */
export function describeCases(suite: string, options: DescribeCasesOptions): void {
  const {
    cases,
    model: _model,
    cassette: _cassette,
    worktree: _worktree,
    scorers: _scorers,
    task: _task,
    ...rest
  } = options;
  defineEvalSuite<EvalCase>(
    suite,
    {
      ...rest,
      // The test's name: the case's name, else its id.
      data: async () =>
        loadCaseList(typeof cases === "function" ? await cases() : cases).map((evalCase) =>
          evalCase.name ? evalCase : { ...evalCase, name: evalCase.id },
        ),
      // Every case gets its task and scorers from caseSettingsOf below.
      task: () => {
        throw new Error("describeCases: the case has no task");
      },
      scorers: [],
    },
    (evalCase) => {
      const { timeout, ...settings } = caseSettingsOf(options, evalCase);
      return { ...settings, ...(timeout !== undefined ? { timeout } : {}) };
    },
  );
}
