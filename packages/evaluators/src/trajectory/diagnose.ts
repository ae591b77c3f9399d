import { appendTo, getOrCreate } from "../collections.js";
import type { TrajectoryCall } from "./adapter.js";
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
}

export type TrajectoryIssueType =
  | "missing-call"
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
  /** agentevals' test: same name, and the matcher accepts (output args, reference args). */
  const fits = (output: TrajectoryCall, reference: TrajectoryCall) =>
    output.name === reference.name && matcherFor(reference.name)(output.args, reference.args);
  let actualByName: Map<string, number[]> | undefined;
  const context: Context = {
    actual,
    expected,
    fits,
    matcherFor,
    settings,
    actualPositions: (name) => {
      actualByName ??= positionsByName(actual);
      return actualByName.get(name) ?? [];
    },
  };
  switch (settings.mode) {
    case "strict":
      return strict(context);
    case "ordered":
      return ordered(context);
    case "superset": {
      const { unmatched, pairs } = greedySuperset(actual, expected, fits);
      const used = new Set(pairs.map(([i]) => i));
      const issues = explain(unmatched, (j) => missingOrDiffering(context, j, used));
      return finish(unmatched.length === 0, pairs, expected.length, issues);
    }
    case "subset": {
      // agentevals: is the expected trajectory a superset of the actual one?
      const { unmatched, pairs } = greedySuperset(expected, actual, fits);
      const used = new Set(pairs.map(([j]) => j));
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
      const usedActual = new Set(forward.pairs.map(([i]) => i));
      const usedExpected = new Set(backward.pairs.map(([j]) => j));
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

/** Positions of each tool name, for finding candidates without scanning everything. */
function positionsByName(calls: readonly TrajectoryCall[]): Map<string, number[]> {
  const byName = new Map<string, number[]>();
  calls.forEach((call, position) => {
    appendTo(byName, call.name, position);
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
    const candidates = byName.get(reference.name) ?? [];
    let start = usedPrefix.get(reference.name) ?? 0;
    while (start < candidates.length && used.has(candidates[start] as number)) start++;
    usedPrefix.set(reference.name, start);
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

/** An expected call nothing matched: a call of the same tool with other arguments, or none at all. */
function missingOrDiffering(
  context: Context,
  expectedPosition: number,
  usedActual: Set<number>,
): TrajectoryIssue {
  const expected = context.expected[expectedPosition] as TrajectoryCall;
  const sameName = context.actualPositions(expected.name);
  const candidate = sameName.find((i) => !usedActual.has(i)) ?? sameName[0];
  if (candidate !== undefined) return differing(context, candidate, expectedPosition);
  return {
    type: "missing-call",
    message: `expected call #${expectedPosition + 1} ${show(expected)} was never made`,
    expectedPosition,
    expected,
  };
}

/** An actual call no expected call matched. */
function extraOrDiffering(
  context: Context,
  actualPosition: number,
  usedExpected: Set<number>,
): TrajectoryIssue {
  const actual = context.actual[actualPosition] as TrajectoryCall;
  const sameName = context.expected.findIndex((call, j) => call.name === actual.name && !usedExpected.has(j));
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
  const passed = n === m && positionalMatches === n;
  if (passed) return { passed, score: 1, issues: [], matched: actual.map((_, k) => [k, k]) };

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
    } else if (a.name === e.name) {
      const [x, y] = [i, j];
      note(() => differing(context, x, y));
      i++;
      j++;
    } else {
      const [x, y] = [i, j];
      note(() => ({
        type: "unexpected-call",
        message: `step ${y + 1}: expected ${show(e)}, got ${where(a, x)} ${show(a)}`,
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
    appendTo(extrasByName, (actual[x] as TrajectoryCall).name, x);
  }
  for (const y of missing) {
    const e = expected[y] as TrajectoryCall;
    const moved = (extrasByName.get(e.name) ?? []).find(
      (x) => extraSet.has(x) && fits(actual[x] as TrajectoryCall, e),
    );
    if (moved !== undefined) {
      extraSet.delete(moved);
      note(() => outOfOrder(context, moved, y));
    } else {
      note(() => ({
        type: "missing-call",
        message: `expected call #${y + 1} ${show(e)} was never made`,
        expectedPosition: y,
        expected: e,
      }));
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
    const candidates = byName.get(e.name) ?? [];
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
    } else
      issues.push({
        type: "missing-call",
        message: `expected call #${j + 1} ${show(e)} was never made`,
        expectedPosition: j,
        expected: e,
      });
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
