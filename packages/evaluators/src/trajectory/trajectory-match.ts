import type { EvaluatorResult, EventPointer, Evidence, Run, Scorer, Violation } from "@evals/core";
import { z } from "zod";
import {
  type EvaluatorOptionsWithThreshold,
  ruleResult,
  scorerFrom,
  severityFor,
  violation,
} from "../evaluator.js";
import {
  type ExpectedStep,
  ExpectedStepSchema,
  expectedTrajectory,
  type TrajectoryCall,
  trajectoryOf,
  trajectoryToMessages,
} from "./adapter.js";
import {
  diagnoseTrajectory,
  type TrajectoryDiagnosis,
  type TrajectoryIssue,
  type TrajectoryMode,
} from "./diagnose.js";
import { type ArgsMatchMode, canonicalOverrides, fuzzyMatchers, type ToolArgsOverrides } from "./matchers.js";

export const TRAJECTORY = "trajectory";

const ArgsModeSchema = z.enum(["exact", "ignore", "subset", "superset"]);

/** The `expectedTrajectory` of a case file. A bare list of calls uses the recommended preset. */
export const ExpectedTrajectorySchema = z.union([
  z.array(ExpectedStepSchema),
  z
    .object({
      /** strict | unordered | subset | superset (agentevals) | ordered (default superset). */
      mode: z.enum(["strict", "unordered", "subset", "superset", "ordered"]).optional(),
      /** How arguments compare: exact | ignore | subset | superset (default superset). */
      argsMode: ArgsModeSchema.optional(),
      /** Per tool: an argument mode or the list of keys to compare. */
      toolOverrides: z.record(z.string(), z.union([ArgsModeSchema, z.array(z.string())])).optional(),
      /** Fuzzy matchers for Claude Code's tools (default true). */
      fuzzy: z.boolean().optional(),
      /** Whose calls: "all" (default), "main", or a subagent id or type. */
      agent: z.string().optional(),
      /** Denied calls (attempted, never ran) count as made (default false). */
      includeDenied: z.boolean().optional(),
      calls: z.array(ExpectedStepSchema),
    })
    .strict(),
]);
export type ExpectedTrajectory = z.input<typeof ExpectedTrajectorySchema>;

export interface TrajectoryMatchOptions {
  /**
   * The expected calls: tool names or `{ tool, args }`; a list of them is one step of calls made
   * together in one model message (parallel calls).
   */
  expected: readonly ExpectedStep[];
  /** Default "superset": the run made at least the expected calls. */
  mode?: TrajectoryMode;
  /** Default "superset": the expected arguments must be present and match. */
  argsMode?: ArgsMatchMode;
  /** agentevals' toolArgsMatchOverrides: per tool, a mode, a list of keys, or a matcher function. */
  toolOverrides?: ToolArgsOverrides;
  /** The recommended fuzzy matchers for Claude Code's tools (default true); toolOverrides win. */
  fuzzy?: boolean;
  /** Whose calls: "all" (default), "main", or a subagent id or type. */
  agent?: string;
  /**
   * Whether calls that were attempted but never ran (a permission denial, a PreToolUse hook's block)
   * count as made. Default false: a denied Write does not satisfy an expected Write, and the failure
   * says it was denied.
   */
  includeDenied?: boolean;
  /**
   * Who decides pass/fail: "agentevals" (its createTrajectoryMatchEvaluator, loaded on first use) or
   * "builtin" (our re-implementation, which always produces the diagnostics). By default agentevals
   * when it is installed (an optional peer dependency), else builtin. "ordered" is builtin only.
   */
  engine?: "agentevals" | "builtin";
  severity?: "error" | "warning" | "info";
}

/** The recommended preset: at least these calls, expected arguments present, fuzzy matchers on. */
export const RECOMMENDED_TRAJECTORY_PRESET = { mode: "superset", argsMode: "superset", fuzzy: true } as const;

/** Options from a case file's expectedTrajectory. */
export function trajectoryOptionsFrom(expected: ExpectedTrajectory): TrajectoryMatchOptions {
  if (Array.isArray(expected)) return { expected };
  const { calls, ...rest } = expected;
  return { ...rest, expected: calls };
}

/**
 * The part of agentevals that decides a trajectory match. Declared here rather than taken from its
 * types: agentevals is an optional peer dependency, and our published declarations must not name a
 * module a user may not have installed.
 */
export interface AgentevalsMatcher {
  createTrajectoryMatchEvaluator(options: {
    trajectoryMatchMode: Exclude<TrajectoryMode, "ordered">;
    toolArgsMatchMode: ArgsMatchMode;
    toolArgsMatchOverrides?: ToolArgsOverrides;
  }): (inputs: { outputs: unknown; referenceOutputs: unknown }) => Promise<unknown>;
}

let agentevals: Promise<AgentevalsMatcher> | undefined;

/**
 * agentevals and its LangChain dependencies take about a second and 40 MB to import (and ~88 MB to
 * install), so they load on first use: the rule evaluators never pay for them. agentevals is an
 * optional peer dependency: when it is not installed, the error says so (`agentevalsMissing`). Its
 * match evaluators are deterministic and need no API key or network.
 */
export function loadAgentevals(): Promise<AgentevalsMatcher> {
  agentevals ??= (import("agentevals") as Promise<AgentevalsMatcher>).catch((error: unknown) => {
    const missing = isAgentevalsNotInstalled(error);
    const failure = new Error(
      missing
        ? "agentevals is not installed (it is an optional peer dependency: npm install agentevals)"
        : `cannot import agentevals: ${(error as Error)?.message ?? String(error)}`,
    );
    Object.assign(failure, { agentevalsLoad: true, agentevalsMissing: missing, cause: error });
    throw failure;
  });
  return agentevals;
}

/** Node's "not found" for the agentevals package itself, not for one of its dependencies. */
function isAgentevalsNotInstalled(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    typeof message === "string" &&
    /(package|module) 'agentevals'/.test(message)
  );
}

/** agentevals' verdict on two trajectories, through the same messages and matchers we use. */
export async function agentevalsVerdict(
  actual: readonly TrajectoryCall[],
  expected: readonly TrajectoryCall[],
  settings: {
    mode: Exclude<TrajectoryMode, "ordered">;
    argsMode: ArgsMatchMode;
    overrides?: ToolArgsOverrides | undefined;
  },
): Promise<boolean> {
  const { createTrajectoryMatchEvaluator } = await loadAgentevals();
  const evaluator = createTrajectoryMatchEvaluator({
    trajectoryMatchMode: settings.mode,
    toolArgsMatchMode: settings.argsMode,
    ...(settings.overrides ? { toolArgsMatchOverrides: settings.overrides } : {}),
  });
  const result = await evaluator({
    outputs: trajectoryToMessages(actual),
    referenceOutputs: trajectoryToMessages(expected),
  });
  return (result as { score: unknown }).score === true;
}

/**
 * trajectory: the run's tool calls against an expected trajectory, with agentevals' modes (strict,
 * unordered, subset, superset) and argument modes (exact, ignore, subset, superset), per-tool
 * overrides and fuzzy matchers for Claude Code's tools. agentevals answers true or false; every
 * failure here also says which expected call is missing, which call is extra or out of order, and which
 * argument differed.
 */
export async function trajectoryMatch(run: Run, options: TrajectoryMatchOptions): Promise<EvaluatorResult> {
  const mode = options.mode ?? RECOMMENDED_TRAJECTORY_PRESET.mode;
  const argsMode = options.argsMode ?? RECOMMENDED_TRAJECTORY_PRESET.argsMode;
  const fuzzy = options.fuzzy ?? RECOMMENDED_TRAJECTORY_PRESET.fuzzy;
  // Keyed by canonical tool names: an override for `Task` is one for `Agent`, the user's winning.
  const overrides = canonicalOverrides(
    fuzzy ? fuzzyMatchers({ cwd: run.cwd, argsMode }) : undefined,
    options.toolOverrides,
  );
  const attempted = trajectoryOf(run, { agent: options.agent ?? "all" });
  const actual = options.includeDenied ? attempted : attempted.filter((call) => !call.denied);
  const denied = options.includeDenied ? [] : attempted.filter((call) => call.denied);
  const expected = expectedTrajectory(options.expected);
  const diagnosis = diagnoseTrajectory(actual, expected, { mode, argsMode, overrides, denied });
  let engine = mode === "ordered" ? "builtin" : (options.engine ?? "agentevals");
  let passed = diagnosis.passed;
  let unavailable: string | undefined;
  if (engine === "agentevals" && mode !== "ordered") {
    try {
      passed = await agentevalsVerdict(actual, expected, { mode, argsMode, overrides });
    } catch (error) {
      // agentevals not installed (an optional peer), or a broken install of it or its LangChain
      // dependencies (0.0.6 shipped one), must not stop the grading: the builtin matcher gives the
      // same verdicts. Not installing it is a choice, said only when the engine was asked for.
      if (!isLoadFailure(error)) throw error;
      engine = "builtin";
      if (options.engine === "agentevals" || !isMissing(error)) unavailable = (error as Error).message;
    }
  }
  const result = trajectoryResult(diagnosis, passed, {
    mode,
    argsMode,
    fuzzy,
    engine,
    agent: options.agent ?? "all",
    actual,
    expected,
    denied,
    severity: options.severity,
  });
  if (unavailable === undefined) return result;
  return {
    ...result,
    violations: [
      ...result.violations,
      violation(
        TRAJECTORY,
        "agentevals-unavailable",
        "info",
        `agentevals could not be loaded (${unavailable}); the verdict is the builtin matcher's`,
      ),
    ],
  };
}

/** An error from importing agentevals (not from evaluating). */
function isLoadFailure(error: unknown): boolean {
  return error instanceof Error && (error as { agentevalsLoad?: boolean }).agentevalsLoad === true;
}

/** A load failure because agentevals is not installed. */
function isMissing(error: unknown): boolean {
  return (error as { agentevalsMissing?: boolean }).agentevalsMissing === true;
}

function trajectoryResult(
  diagnosis: TrajectoryDiagnosis,
  passed: boolean,
  context: {
    mode: TrajectoryMode;
    argsMode: ArgsMatchMode;
    fuzzy: boolean;
    engine: string;
    agent: string;
    actual: TrajectoryCall[];
    expected: TrajectoryCall[];
    denied: TrajectoryCall[];
    severity: "error" | "warning" | "info" | undefined;
  },
): EvaluatorResult {
  const violations: Violation[] = [];
  const severity = severityFor({ severity: context.severity }, "", "error");
  if (!passed) {
    for (const issue of diagnosis.issues) {
      violations.push(
        violation(TRAJECTORY, issue.type, severity, issue.message, pointerOf(issue), issueEvidence(issue)),
      );
    }
  }
  if (passed !== diagnosis.passed) {
    violations.push(
      violation(
        TRAJECTORY,
        "diagnostics-disagree",
        passed ? "info" : severity,
        `agentevals says the trajectory ${passed ? "matches" : "does not match"}, the diagnostics found ${
          diagnosis.issues.length
        } difference(s); the verdict is agentevals'`,
      ),
    );
  }
  const evidence: Evidence[] = diagnosis.matched.slice(0, 50).map(([i, j]) => {
    const call = context.actual[i] as TrajectoryCall;
    // The expected call as the case named it, and the run's name when it differs (Task for Agent).
    const named = context.expected[j]?.name ?? call.name;
    return {
      type: "matched",
      description: `expected call #${j + 1} ${named} matched call #${i + 1}${named === call.name ? "" : ` (${call.name})`}`,
      ...(call.event_index !== undefined ? { pointer: pointerOfCall(call) } : {}),
    };
  });
  const result = ruleResult(TRAJECTORY, {
    score: passed ? 1 : Math.min(diagnosis.score, 0.99),
    violations,
    evidence,
    metadata: {
      mode: context.mode,
      argsMode: context.argsMode,
      fuzzy: context.fuzzy,
      engine: context.engine,
      agent: context.agent,
      actualCalls: context.actual.length,
      expectedCalls: context.expected.length,
      deniedCalls: context.denied.length,
      actualSequence: context.actual.slice(0, 200).map((call) => call.name),
      expectedSequence: context.expected.map((call) => call.name),
    },
  });
  return { ...result, passed };
}

function pointerOfCall(call: TrajectoryCall): EventPointer {
  return {
    ...(call.event_index !== undefined ? { event_index: call.event_index } : {}),
    ...(call.id ? { tool_use_id: call.id } : {}),
    ...(call.agent ? { agent: call.agent } : {}),
  };
}

function pointerOf(issue: TrajectoryIssue): EventPointer | undefined {
  return issue.actual ? pointerOfCall(issue.actual) : undefined;
}

function issueEvidence(issue: TrajectoryIssue): Record<string, unknown> {
  return {
    ...(issue.expectedPosition !== undefined ? { expected_position: issue.expectedPosition + 1 } : {}),
    ...(issue.actualPosition !== undefined ? { actual_position: issue.actualPosition + 1 } : {}),
    ...(issue.expected ? { expected: { tool: issue.expected.name, args: issue.expected.args } } : {}),
    ...(issue.actual ? { actual: { tool: issue.actual.name, args: issue.actual.args } } : {}),
    ...(issue.differences ? { differences: issue.differences } : {}),
  };
}

/** A describeEval scorer for trajectory matching. Without `expected`, it uses the case's expectedTrajectory. */
export function trajectoryScorer(
  options?: (Partial<TrajectoryMatchOptions> & EvaluatorOptionsWithThreshold) | undefined,
): Scorer {
  return scorerFrom<Partial<TrajectoryMatchOptions>>(
    TRAJECTORY,
    (run, merged) => {
      if (!merged?.expected) {
        throw new Error("trajectoryScorer needs `expected` calls, or a case with an expectedTrajectory");
      }
      return trajectoryMatch(run, merged as TrajectoryMatchOptions);
    },
    options,
    (evalCase) => {
      const trajectory = (evalCase as { expectedTrajectory?: ExpectedTrajectory } | undefined)
        ?.expectedTrajectory;
      return trajectory ? trajectoryOptionsFrom(trajectory) : undefined;
    },
  );
}
