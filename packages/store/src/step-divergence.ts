import type { Store } from "./store.js";

/** One trial of one case of one run. */
export interface TrialKey {
  run_id: string;
  position: number;
  trial: number;
}

/** One tool call of a trial's trajectory (a row of `steps`). */
export interface Step {
  seq: number;
  event_index: number;
  agent: string;
  tool: string;
  input: unknown;
  is_error: boolean | null;
}

/**
 * Where two trials' trajectories part: the first step (0-based) whose agent, tool or input differ,
 * or where one trajectory ends before the other. `a` or `b` is null where that trajectory had ended.
 */
export interface StepDivergence {
  step: number;
  a: Step | null;
  b: Step | null;
}

/** A trial's tool calls in order. */
export async function trialSteps(store: Store, key: TrialKey): Promise<Step[]> {
  return store.sql.query<Step>(
    `SELECT seq, event_index, agent, tool, input, is_error FROM steps
     WHERE run_id = $1 AND position = $2 AND trial = $3 ORDER BY seq`,
    [key.run_id, key.position, key.trial],
  );
}

/**
 * The first step where trial `b`'s trajectory differs from trial `a`'s; undefined when they made the
 * same calls (a verdict that changed without the trajectory changing: the rules or the case did).
 */
export async function firstDivergence(
  store: Store,
  a: TrialKey,
  b: TrialKey,
): Promise<StepDivergence | undefined> {
  const [stepsA, stepsB] = [await trialSteps(store, a), await trialSteps(store, b)];
  for (let step = 0; step < Math.max(stepsA.length, stepsB.length); step++) {
    const [stepA, stepB] = [stepsA[step], stepsB[step]];
    if (!stepA || !stepB || !sameCall(stepA, stepB)) return { step, a: stepA ?? null, b: stepB ?? null };
  }
  return undefined;
}

function sameCall(a: Step, b: Step): boolean {
  return a.agent === b.agent && a.tool === b.tool && canonical(a.input) === canonical(b.input);
}

/** JSON with object keys sorted: jsonb may hand keys back in another order than they were written. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : inner,
  );
}
