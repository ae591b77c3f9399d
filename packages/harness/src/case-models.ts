import type { EvalCase } from "@evals/evaluators";
import type { ModelSource, ScriptFunction } from "@evals/vcr";
import type { CaseModel } from "./trial.js";

/**
 * A suite's scripted models: one per case id (cases without one have none), or a function of the
 * case. What it gives is a @evals/vcr ScriptFunction or ModelSource.
 */
export type CaseModels =
  | Record<string, ScriptFunction | undefined>
  | ((evalCase: EvalCase) => ScriptFunction | ModelSource | undefined);

/** The suite's models as the trial's `model`. */
export function caseModel(models: CaseModels): CaseModel<EvalCase> {
  return typeof models === "function" ? models : (evalCase) => models[evalCase.id];
}
