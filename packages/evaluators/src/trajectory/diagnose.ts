import { canonicalToolName, sameTool } from "@evals/core";
import { appendTo, getOrCreate } from "../collections.js";
import { type TrajectoryCall, trajectorySteps } from "./adapter.js";
import {
  type ArgsMatchMode,
  argumentDifferences,
  matcherForTool,
  type ToolArgsMatcher,
  type ToolArgsOverrides,
} from "./matchers.js";

/**
 * agentevals' four modes, plus "ordered" (ours): every expected call, in this order, other calls
 * allowed in between.
 * - strict: the same calls in the same order, nothing more;
 * - unordered: the same calls in any order;
 * - superset: the run made at least the expected calls (extra calls allowed);
 * - subset: the run made only expected calls (some may be missing).
 */
export type TrajectoryMode = "strict" | "unordered" | "subset" | "superset" | "ordered";
export const AGENTEVALS_MODES = ["strict", "unordered", "subset", "superset"] as const;

export interface TrajectoryMatchSettings {
  mode: TrajectoryMode;
  argsMode: ArgsMatchMode;
  overrides?: ToolArgsOverrides | undefined;
  /**
   * Calls that were attempted and never ran (denied, or blocked by a hook). They are not part of the
   * actual trajectory; an expected call that only they match is reported as denied.
   */
  denied?: readonly TrajectoryCall[] | undefined;
}

export type TrajectoryIssueType =
  | "missing-call"
  | "denied-call"
  | "parallel-mismatch"
  | "extra-call"
  | "out-of-order"
  | "argument-mismatch"
  | "unexpected-call";

/** One reason a trajectory did not match. Positions are 0-based in the actual / expected lists. */
export interface TrajectoryIssue {
  type: TrajectoryIssueType;
  message: string;
  actualPosition?: number;
  expectedPosition?: number;
  actual?: TrajectoryCall;
  expected?: TrajectoryCall;
  /** For argument mismatches: the arguments that differ. */
  differences?: { key: string; expected: unknown; actual: unknown }[];
}

export interface TrajectoryDiagnosis {
  passed: boolean;
  /** Partial credit: the share of calls that matched (1 when passed). */
  score: number;
  issues: TrajectoryIssue[];
  /** Pairs [actualPosition, expectedPosition] that matched. */
  matched: [number, number][];
}

/** Most issues reported per diagnosis; the rest are counted. */
const MAX_ISSUES = 50;
/** How far strict alignment looks ahead for a re-synchronization point. */
const LOOKAHEAD = 32;

/**
 * Matches an actual trajectory against an expected one with agentevals' semantics (same greedy
 * choices, same argument matchers) and explains every failure: the missing call, the extra or
 * out-of-order call, the argument that differed. Linear in the number of calls for a small expected
 * trajectory.
 */
export function diagnoseTrajectory(
  actual: readonly TrajectoryCall[],
  expected: readonly TrajectoryCall[],
  settings: TrajectoryMatchSettings,
): TrajectoryDiagnosis {
  const matchers = new Map<string, ToolArgsMatcher>();
  const matcherFor = (name: string) =>
    getOrCreate(matchers, name, () => matcherForTool(name, settings.argsMode, settings.overrides));
  /** agentevals' test: same tool (`Task` is `Agent`), and the matcher accepts (output args, reference args). */
  const fits = (output: TrajectoryCall, reference: TrajectoryCall) =>
    sameTool(output.name, reference.name) && matcherFor(reference.name)(output.args, reference.args);
  let actualByName: Map<string, number[]> | undefined;
  const context: Context = {
    actual,
    expected,
    fits,
    matcherFor,
    settings,
    actualPositions: (name) => {
      actualByName ??= positionsByName(actual);
      return actualByName.get(canonicalToolName(name)) ?? [];
    },
  };
  switch (settings.mode) {
    case "strict":
      return strict(context);
    case "ordered":
      return ordered(context);
    case "superset": {
      const { unmatched, pairs } = greedySuperset(actual, expected, fits);
      const used = new Map(pairs);
      const issues = explain(unmatched, (j) => missingOrDiffering(context, j, used));
      return finish(unmatched.length === 0, pairs, expected.length, issues);
    }
    case "subset": {
      // agentevals: is the expected trajectory a superset of the actual one?
      const { unmatched, pairs } = greedySuperset(expected, actual, fits);
      const used = new Map(pairs);
      const issues = explain(unmatched, (i) => extraOrDiffering(context, i, used));
      return finish(
        unmatched.length === 0,
        pairs.map(([j, i]) => [i, j]),
        actual.length,
        issues,
      );
    }
    case "unordered": {
      const forward = greedySuperset(actual, expected, fits);
      const backward = greedySuperset(expected, actual, fits);
      const usedActual = new Map(forward.pairs);
      const usedExpected = new Map(backward.pairs);
      const issues = [
        ...explain(forward.unmatched, (j) => missingOrDiffering(context, j, usedActual)),
        ...explain(backward.unmatched, (i) => extraOrDiffering(context, i, usedExpected)),
      ];
      const passed = forward.unmatched.length === 0 && backward.unmatched.length === 0;
      const matchedCount = forward.pairs.length + backward.pairs.length;
      const total = actual.length + expected.length;
      return {
        passed,
        score: passed ? 1 : total === 0 ? 1 : matchedCount / total,
        issues: dedupe(issues),
        matched: forward.pairs,
      };
    }
  }
}

interface Context {
  actual: readonly TrajectoryCall[];
  expected: readonly TrajectoryCall[];
  fits: (output: TrajectoryCall, reference: TrajectoryCall) => boolean;
  matcherFor: (name: string) => ToolArgsMatcher;
  settings: TrajectoryMatchSettings;
  /** Positions of the actual calls with this name (indexed on first use). */
  actualPositions: (name: string) => number[];
}

/**
 * Issues for the first positions, and one summary for the rest: explaining 100,000 extra calls one by
 * one would cost more than matching them.
 */
function explain(
  positions: readonly number[],
  make: (position: number) => TrajectoryIssue,
): TrajectoryIssue[] {
  const issues = positions.slice(0, MAX_ISSUES).map(make);
  const rest = positions.length - issues.length;
  if (rest > 0) issues.push(summary(issues[issues.length - 1]?.type ?? "extra-call", rest));
  return issues;
}

function summary(type: TrajectoryIssueType, rest: number): TrajectoryIssue {
  return { type, message: `... and ${rest} more difference${rest === 1 ? "" : "s"}` };
}

function finish(
  passed: boolean,
  matched: [number, number][],
  total: number,
  issues: TrajectoryIssue[],
): TrajectoryDiagnosis {
  return {
    passed,
    score: passed ? 1 : total === 0 ? 1 : matched.length / total,
    issues: dedupe(issues),
    matched,
  };
}

function dedupe(issues: TrajectoryIssue[]): TrajectoryIssue[] {
  const seen = new Set<string>();
  const kept: TrajectoryIssue[] = [];
  let summarized = 0;
  for (const issue of issues) {
    if (issue.actualPosition === undefined && issue.expectedPosition === undefined) {
      const more = /^\.\.\. and (\d+) more/.exec(issue.message);
      if (more) {
        summarized += Number(more[1]);
        continue;
      }
    }
    const key = `${issue.type}:${issue.actualPosition ?? ""}:${issue.expectedPosition ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(issue);
  }
  if (kept.length <= MAX_ISSUES && summarized === 0) return kept;
  if (kept.length <= MAX_ISSUES)
    return [...kept, summary(kept[kept.length - 1]?.type ?? "extra-call", summarized)];
  const rest = kept.length - MAX_ISSUES + summarized;
  return [
    ...kept.slice(0, MAX_ISSUES),
    {
      type: kept[MAX_ISSUES]?.type ?? "extra-call",
      message: `... and ${rest} more difference${rest === 1 ? "" : "s"}`,
    },
  ];
}

/** Positions of each tool (by canonical name), for finding candidates without scanning everything. */
function positionsByName(calls: readonly TrajectoryCall[]): Map<string, number[]> {
  const byName = new Map<string, number[]>();
  calls.forEach((call, position) => {
    appendTo(byName, canonicalToolName(call.name), position);
  });
  return byName;
}

/**
 * agentevals' `_isTrajectorySuperset(outputs, references)`: for each reference call in order, the
 * first unused output call that fits it. Returns the references left unmatched and the pairs
 * [outputPosition, referencePosition].
 */
export function greedySuperset(
  outputs: readonly TrajectoryCall[],
  references: readonly TrajectoryCall[],
  fits: (output: TrajectoryCall, reference: TrajectoryCall) => boolean,
): { unmatched: number[]; pairs: [number, number][] } {
  const byName = positionsByName(outputs);
  const used = new Set<number>();
  /** Per name, how many leading positions are all used (skipped without looking). */
  const usedPrefix = new Map<string, number>();
  const unmatched: number[] = [];
  const pairs: [number, number][] = [];
  references.forEach((reference, referencePosition) => {
    const name = canonicalToolName(reference.name);
    const candidates = byName.get(name) ?? [];
    let start = usedPrefix.get(name) ?? 0;
    while (start < candidates.length && used.has(candidates[start] as number)) start++;
    usedPrefix.set(name, start);
    for (let k = start; k < candidates.length; k++) {
      const outputPosition = candidates[k] as number;
      if (used.has(outputPosition)) continue;
      if (fits(outputs[outputPosition] as TrajectoryCall, reference)) {
        used.add(outputPosition);
        pairs.push([outputPosition, referencePosition]);
        return;
      }
    }
    unmatched.push(referencePosition);
  });
  return { unmatched, pairs };
}

function show(call: TrajectoryCall): string {
  const args = JSON.stringify(call.args);
  return `${call.name}${args === "{}" ? "" : ` ${args.length > 160 ? `${args.slice(0, 159)}…` : args}`}`;
}

function where(call: TrajectoryCall, position: number): string {
  return `call #${position + 1}${call.id ? ` (${call.id}${call.agent && call.agent !== "main" ? `, agent ${call.agent}` : ""})` : ""}`;
}

function describeDifferences(differences: { key: string; expected: unknown; actual: unknown }[]): string {
  return differences
    .map(
      (difference) =>
        `${difference.key}: expected ${JSON.stringify(difference.expected) ?? "nothing"}, got ${JSON.stringify(difference.actual) ?? "nothing"}`,
    )
    .join("; ");
}

function differing(context: Context, actualPosition: number, expectedPosition: number): TrajectoryIssue {
  const actual = context.actual[actualPosition] as TrajectoryCall;
  const expected = context.expected[expectedPosition] as TrajectoryCall;
  const differences = argumentDifferences(
    actual.args,
    expected.args,
    context.matcherFor(expected.name),
    context.settings.argsMode,
  );
  return {
    type: "argument-mismatch",
    message: `expected call #${expectedPosition + 1} ${expected.name}: arguments differ from ${where(actual, actualPosition)}: ${
      differences.length > 0
        ? describeDifferences(differences)
        : `got ${show(actual)}, expected ${show(expected)}`
    }`,
    actualPosition,
    expectedPosition,
    actual,
    expected,
    differences,
  };
}

/** An expected call that no call made: denied when an attempted call that never ran fits it. */
function neverMade(context: Context, expectedPosition: number): TrajectoryIssue {
  const expected = context.expected[expectedPosition] as TrajectoryCall;
  const denied = context.settings.denied?.find((call) => context.fits(call, expected));
  if (denied) {
    return {
      type: "denied-call",
      message: `expected call #${expectedPosition + 1} ${show(expected)} was attempted but denied: ${
        denied.id ? `${denied.id} ` : ""
      }${show(denied)} never ran`,
      expectedPosition,
      expected,
      actual: denied,
    };
  }
  return {
    type: "missing-call",
    message: `expected call #${expectedPosition + 1} ${show(expected)} was never made`,
    expectedPosition,
    expected,
  };
}

/** " (attempted but denied: ...)" when a call that never ran fits the expected call. */
function deniedNote(context: Context, expected: TrajectoryCall): string {
  const denied = context.settings.denied?.find((call) => context.fits(call, expected));
  return denied ? ` (attempted but denied: ${denied.id ? `${denied.id} ` : ""}never ran)` : "";
}

/**
 * An expected call nothing matched: a call of the same tool with other arguments, a call that fits
 * but was taken by another expected call, a denied call, or none at all. `usedActual` maps each
 * matched actual position to the expected position it matched.
 */
function missingOrDiffering(
  context: Context,
  expectedPosition: number,
  usedActual: Map<number, number>,
): TrajectoryIssue {
  const expected = context.expected[expectedPosition] as TrajectoryCall;
  const sameName = context.actualPositions(expected.name);
  const free = sameName.filter((i) => !usedActual.has(i));
  if (free.length === 0) {
    // Every call of this tool matched another expected call: name the one this call competed for.
    const taken = sameName.find((i) => context.fits(context.actual[i] as TrajectoryCall, expected));
    const other = taken !== undefined ? usedActual.get(taken) : undefined;
    if (taken !== undefined && other !== undefined) {
      const actual = context.actual[taken] as TrajectoryCall;
      const rival = context.expected[other] as TrajectoryCall;
      return {
        type: "missing-call",
        message: `expected call #${expectedPosition + 1} ${show(expected)} was not matched: ${where(actual, taken)} ${show(actual)} fits it, but matched expected call #${other + 1} ${show(rival)}; one call cannot match both`,
        actualPosition: taken,
        expectedPosition,
        actual,
        expected,
      };
    }
  }
  const denied = neverMade(context, expectedPosition);
  if (denied.type === "denied-call") return denied;
  const candidate = free[0] ?? sameName[0];
  if (candidate !== undefined) return differing(context, candidate, expectedPosition);
  return denied;
}

/** An actual call no expected call matched. */
function extraOrDiffering(
  context: Context,
  actualPosition: number,
  usedExpected: Map<number, number>,
): TrajectoryIssue {
  const actual = context.actual[actualPosition] as TrajectoryCall;
  const sameName = context.expected.findIndex(
    (call, j) => sameTool(call.name, actual.name) && !usedExpected.has(j),
  );
  if (sameName >= 0) return differing(context, actualPosition, sameName);
  return {
    type: "extra-call",
    message: `${where(actual, actualPosition)} ${show(actual)} is not in the expected trajectory`,
    actualPosition,
    actual,
  };
}

/** strict: call by call. Explains with an alignment that re-synchronizes after insertions and deletions. */
function strict(context: Context): TrajectoryDiagnosis {
  const { actual, expected, fits } = context;
  const n = actual.length;
  const m = expected.length;
  let positionalMatches = 0;
  for (let k = 0; k < Math.min(n, m); k++) {
    if (fits(actual[k] as TrajectoryCall, expected[k] as TrajectoryCall)) positionalMatches++;
  }
  // agentevals compares step by step: the calls of one model message as one step, in any order.
  const stepPairs = matchSteps(context);
  const passed = stepPairs !== undefined;
  if (passed) return { passed, score: 1, issues: [], matched: stepPairs };
  if (n === m && positionalMatches === n) {
    // The same calls in the same order, grouped into model messages differently.
    return {
      passed,
      score: 0.99,
      issues: [parallelMismatch(context)],
      matched: actual.map((_, k) => [k, k]),
    };
  }

  const issues: TrajectoryIssue[] = [];
  let unexplained = 0;
  /** Explains the first differences in detail and counts the rest. */
  const note = (make: () => TrajectoryIssue) => {
    if (issues.length < MAX_ISSUES * 2) issues.push(make());
    else unexplained++;
  };
  const matched: [number, number][] = [];
  const extras: number[] = [];
  const missing: number[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const a = actual[i] as TrajectoryCall;
    const e = expected[j] as TrajectoryCall;
    if (fits(a, e)) {
      matched.push([i, j]);
      i++;
      j++;
      continue;
    }
    let k = -1;
    for (let x = i + 1; x < Math.min(n, i + LOOKAHEAD); x++) {
      if (fits(actual[x] as TrajectoryCall, e)) {
        k = x;
        break;
      }
    }
    let l = -1;
    for (let y = j + 1; y < Math.min(m, j + LOOKAHEAD); y++) {
      if (fits(a, expected[y] as TrajectoryCall)) {
        l = y;
        break;
      }
    }
    if (k >= 0 && (l < 0 || k - i <= l - j)) {
      while (i < k) extras.push(i++);
    } else if (l >= 0) {
      while (j < l) missing.push(j++);
    } else if (sameTool(a.name, e.name)) {
      const [x, y] = [i, j];
      note(() => differing(context, x, y));
      i++;
      j++;
    } else {
      const [x, y] = [i, j];
      note(() => ({
        type: "unexpected-call",
        message: `step ${y + 1}: expected ${show(e)}${deniedNote(context, e)}, got ${where(a, x)} ${show(a)}`,
        actualPosition: x,
        expectedPosition: y,
        actual: a,
        expected: e,
      }));
      i++;
      j++;
    }
  }
  while (i < n) extras.push(i++);
  while (j < m) missing.push(j++);

  // A missing call that was made elsewhere (and flagged extra there) was made out of order.
  const extraSet = new Set(extras);
  const extrasByName = new Map<string, number[]>();
  for (const x of extras) {
    appendTo(extrasByName, canonicalToolName((actual[x] as TrajectoryCall).name), x);
  }
  for (const y of missing) {
    const e = expected[y] as TrajectoryCall;
    const moved = (extrasByName.get(canonicalToolName(e.name)) ?? []).find(
      (x) => extraSet.has(x) && fits(actual[x] as TrajectoryCall, e),
    );
    if (moved !== undefined) {
      extraSet.delete(moved);
      note(() => outOfOrder(context, moved, y));
    } else {
      note(() => neverMade(context, y));
    }
  }
  for (const x of extras) {
    if (!extraSet.has(x)) continue;
    const a = actual[x] as TrajectoryCall;
    note(() => ({
      type: "extra-call",
      message: `${where(a, x)} ${show(a)} is not in the expected trajectory`,
      actualPosition: x,
      actual: a,
    }));
  }
  if (n !== m && issues.length === 0) {
    issues.push({ type: n > m ? "extra-call" : "missing-call", message: `${n} calls made, ${m} expected` });
  }
  issues.sort(
    (p, q) => (p.expectedPosition ?? p.actualPosition ?? 0) - (q.expectedPosition ?? q.actualPosition ?? 0),
  );
  if (unexplained > 0) issues.push(summary("extra-call", unexplained));
  return {
    passed,
    score: Math.max(n, m) === 0 ? 1 : positionalMatches / Math.max(n, m),
    issues: dedupe(issues),
    matched,
  };
}

/**
 * agentevals' strict comparison: as many steps, each step with as many calls, each call of a step
 * matching an unused expected call of the same step (the first that fits). Returns the pairs
 * [actualPosition, expectedPosition], or undefined when the trajectories differ.
 */
function matchSteps(context: Context): [number, number][] | undefined {
  // Steps of positions (the same call object may be in both trajectories).
  const indexed = (calls: readonly TrajectoryCall[]) =>
    trajectorySteps(calls.map((call, position) => ({ ...call, position })));
  const actualSteps = indexed(context.actual);
  const expectedSteps = indexed(context.expected);
  if (actualSteps.length !== expectedSteps.length) return undefined;
  const pairs: [number, number][] = [];
  for (let s = 0; s < actualSteps.length; s++) {
    const outputs = actualSteps[s] as (TrajectoryCall & { position: number })[];
    const references = expectedSteps[s] as (TrajectoryCall & { position: number })[];
    if (outputs.length !== references.length) return undefined;
    const seen = new Set<number>();
    for (const output of outputs) {
      const r = references.findIndex((reference, k) => !seen.has(k) && context.fits(output, reference));
      if (r < 0) return undefined;
      seen.add(r);
      pairs.push([output.position, (references[r] as { position: number }).position]);
    }
  }
  return pairs;
}

/** The first step where the run's model messages group the calls differently from the expected steps. */
function parallelMismatch(context: Context): TrajectoryIssue {
  const actualSteps = trajectorySteps(context.actual);
  const expectedSteps = trajectorySteps(context.expected);
  let position = 0;
  for (let s = 0; s < Math.min(actualSteps.length, expectedSteps.length); s++) {
    const made = (actualSteps[s] as TrajectoryCall[]).length;
    const wanted = (expectedSteps[s] as TrajectoryCall[]).length;
    if (made !== wanted) {
      const span = (from: number, count: number) =>
        count === 1 ? `call #${from + 1}` : `calls #${from + 1}-#${from + count}`;
      return {
        type: "parallel-mismatch",
        message: `${span(position, made)} ${made === 1 ? "was made alone" : "were made together in one model message"}, but expected ${
          wanted === 1 ? "alone" : `${span(position, wanted)} together in one model message`
        } (strict mode compares model messages; write parallel calls as a list: [["Read", "Grep"], ...])`,
        actualPosition: position,
        expectedPosition: position,
        actual: context.actual[position] as TrajectoryCall,
        expected: context.expected[position] as TrajectoryCall,
      };
    }
    position += made;
  }
  return { type: "parallel-mismatch", message: "the calls are grouped into model messages differently" };
}

function outOfOrder(context: Context, actualPosition: number, expectedPosition: number): TrajectoryIssue {
  const actual = context.actual[actualPosition] as TrajectoryCall;
  const expected = context.expected[expectedPosition] as TrajectoryCall;
  return {
    type: "out-of-order",
    message: `expected call #${expectedPosition + 1} ${show(expected)} was made out of order, as ${where(actual, actualPosition)}`,
    actualPosition,
    expectedPosition,
    actual,
    expected,
  };
}

/** ordered: every expected call, in order, as a subsequence of the actual calls. */
function ordered(context: Context): TrajectoryDiagnosis {
  const { actual, expected, fits } = context;
  const byName = positionsByName(actual);
  const matched: [number, number][] = [];
  const issues: TrajectoryIssue[] = [];
  let next = 0;
  expected.forEach((e, j) => {
    const candidates = byName.get(canonicalToolName(e.name)) ?? [];
    let k = lowerBound(candidates, next);
    for (; k < candidates.length; k++) {
      const i = candidates[k] as number;
      if (fits(actual[i] as TrajectoryCall, e)) {
        matched.push([i, j]);
        next = i + 1;
        return;
      }
    }
    const earlier = candidates.find((i) => i < next && fits(actual[i] as TrajectoryCall, e));
    if (earlier !== undefined) issues.push(outOfOrder(context, earlier, j));
    else if (candidates.length > 0) {
      const after = candidates[lowerBound(candidates, next)];
      issues.push(differing(context, after ?? (candidates[candidates.length - 1] as number), j));
    } else issues.push(neverMade(context, j));
  });
  return finish(issues.length === 0, matched, expected.length, issues);
}

function lowerBound(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((sorted[mid] as number) < value) low = mid + 1;
    else high = mid;
  }
  return low;
}
