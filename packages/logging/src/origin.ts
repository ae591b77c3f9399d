import type { CaseResult, TrialResult } from "./case-result.js";

/** How reports name where a trial's run came from. */
export type OriginLabel = "live" | "replayed" | "stored";

/**
 * "replayed" for a run answered from a recording (origin replay: the real CLI against a wire
 * recording; cassette: a recorded run), "stored" for a run read from disk, "live" for a run whose
 * model was called (and paid for) in this eval run; undefined when the trial does not say.
 */
export function originLabel(origin: TrialResult["origin"]): OriginLabel | undefined {
  if (origin === "replay" || origin === "cassette") return "replayed";
  if (origin === "stored") return "stored";
  return origin;
}

/** Whether a trial's cost was spent in this eval run: a live run, or one that does not say. */
export function paidFor(trial: Pick<TrialResult, "origin">): boolean {
  return trial.origin === undefined || trial.origin === "live";
}

/**
 * What a case's trials were: "replayed" when every trial was replayed, "replayed, live" when they
 * were mixed, undefined when every trial was live or none says.
 */
export function caseOrigin(c: Pick<CaseResult, "trials">): string | undefined {
  const labels = [
    ...new Set(c.trials.map((trial) => originLabel(trial.origin)).filter((l) => l !== undefined)),
  ];
  if (labels.length === 0 || (labels.length === 1 && labels[0] === "live")) return undefined;
  return labels.sort((a, b) => (a === "live" ? 1 : b === "live" ? -1 : a.localeCompare(b))).join(", ");
}
