import type { AgentRunResult, EvaluatorResult, Run, RunResultFields, RunSink, Violation } from "@evals/core";
import { newRuleContext, type RuleOutcome, resultOf } from "../define-rule.js";
import type { RuleOptionsBase } from "../evaluator.js";
import { judgeOutcome, outcomeResult } from "../outcome.js";
import { behavior } from "../rules/behavior.js";
import { defaultRuleRegistry, type EvaluatorId, type RuleRegistry } from "../rules/registry.js";
import { RunStreamVisit, type RunVisitor } from "../run-visit.js";
import { trajectoryMatch, trajectoryOptionsFrom } from "../trajectory/trajectory-match.js";
import { flatJoin, reasonLineOf } from "../violation.js";
import { parseCase } from "./load.js";
import { type EvalCase, type EvalCaseInput, type ExpectedViolation, withArticle } from "./schema.js";

/**
 * A rule's options for a case: its `rules` entry over what the case implies elsewhere (the rule's
 * `fromCase`: the permission mode and allowedTools pre-approve calls for approval-gate;
 * behavior.expectedContextFiles and requiresContext drive context-loading). Undefined when the case
 * turns the rule off. `rules`: the registry the rule is in (default: the built-in rules).
 */
export function ruleOptionsFromCase(
  id: string,
  evalCase: EvalCase,
  rules: RuleRegistry = defaultRuleRegistry,
): Record<string, unknown> | undefined {
  const configured = (evalCase.rules as Record<string, unknown>)[id];
  if (configured === false) return undefined;
  const options = (typeof configured === "object" ? configured : {}) as Record<string, unknown>;
  const implied = rules.get(id)?.fromCase?.(evalCase) as Record<string, unknown> | undefined;
  return implied ? { ...implied, ...options } : options;
}

/**
 * The evaluators a case runs, in report order: outcome, behavior, trajectory (when expected), then
 * the rules (the opt-in ones, report-first and error-handling, only when the case names them in
 * `rules` or `expectedViolations`), of the registry `rules` (default: the built-in rules).
 */
export function evaluatorsForCase(
  evalCase: EvalCase,
  rules: RuleRegistry = defaultRuleRegistry,
): EvaluatorId[] {
  const ids: EvaluatorId[] = ["outcome", "behavior"];
  if (evalCase.expectedTrajectory !== undefined) ids.push("trajectory");
  for (const { id } of rules.rules) {
    const configured = (evalCase.rules as Record<string, unknown>)[id];
    if (configured === false) continue;
    if (
      rules.isOptIn(id) &&
      configured === undefined &&
      !evalCase.expectedViolations.some((expected) => expected.rule === id)
    )
      continue;
    ids.push(id);
  }
  return ids;
}

/**
 * Runs one evaluator of a case on a run. The outcome is judged on the whole AgentRunResult (exit
 * code, timeout) when it is given one, else on the run's result lines.
 */
export async function runCaseEvaluator(
  id: EvaluatorId,
  input: Run | AgentRunResult,
  evalCase: EvalCase,
  rules: RuleRegistry = defaultRuleRegistry,
): Promise<EvaluatorResult> {
  if (id === "outcome") return outcomeResult(judgeOutcome(input, evalCase.outcome ?? "success"));
  const run = runOf(input);
  if (id === "behavior") return behavior(run, evalCase.behavior ?? {});
  if (id === "trajectory") {
    if (evalCase.expectedTrajectory === undefined)
      throw new Error(`case ${evalCase.id} has no expectedTrajectory`);
    return trajectoryMatch(run, trajectoryOptionsFrom(evalCase.expectedTrajectory));
  }
  const rule = rules.get(id);
  if (!rule) throw new Error(`case ${evalCase.id}: no rule "${id}" in the registry it is judged with`);
  return rule.check(run, ruleOptionsFromCase(id, evalCase, rules) ?? {});
}

/** How an expected violation turned out. */
export interface ExpectedViolationOutcome extends ExpectedViolation {
  /** How many matching violations the run produced. */
  occurred: number;
  passed: boolean;
  message: string;
}

/** One evaluator's result judged in the light of the case. */
export interface EvaluatorVerdict {
  evaluator: EvaluatorId;
  /** The case's rules: expected violations occurred, forbidden ones did not, no other error. */
  passed: boolean;
  /** 1 when passed, else the evaluator's own score (0 when that was 1). */
  score: number;
  /** The score this evaluator needs (the case's threshold; none for behavior, which must pass). */
  threshold?: number;
  /** Whether it counts as passing: score >= threshold when there is one, else `passed`. */
  ok: boolean;
  /** Why it failed, one line each. */
  reasons: string[];
  expectedViolations: ExpectedViolationOutcome[];
  /** The evaluator's own result. */
  result: EvaluatorResult;
  /**
   * The evaluator's violations, each one the case expected (an expectedViolations entry with
   * shouldViolate: true matched it) marked `expected: true`.
   */
  violations: Violation[];
}

/** A run judged against a case. */
export interface CaseEvaluation {
  caseId: string;
  caseName?: string;
  /** Every evaluator ok. */
  passed: boolean;
  /**
   * The mean of every verdict's score: the score describeEval gives a trial judged by
   * `scorersForCase(case)` (one scorer per verdict), so `evals grade` and the harness agree.
   */
  score: number;
  threshold?: number;
  verdicts: EvaluatorVerdict[];
  /** The evaluators' own results, in order. */
  results: EvaluatorResult[];
  expectedViolations: ExpectedViolationOutcome[];
  /** Why the case failed (empty when it passed), each line prefixed with the evaluator id. */
  reasons: string[];
}

/** The Run of a run or of an AgentRunResult. */
export function runOf(input: Run | AgentRunResult): Run {
  return "run" in input && "run_id" in input ? input.run : (input as Run);
}

/**
 * Judges a run against a case: every evaluator the case runs, and one verdict. The run must end the
 * way the case expects (`outcome`, default success: an API error, max turns, an error result, a kill,
 * a nonzero exit, no result line or a timeout fail the case; give an AgentRunResult for the exit code
 * and timeout, a Run alone tells only its result lines). Behavior must pass;
 * every expected violation (shouldViolate: true) must occur and no forbidden one (shouldViolate:
 * false) may; any other error-severity violation fails. With a `threshold`, an evaluator other than
 * behavior passes when its score reaches it. The rules come from `rules` (default: the built-in ones).
 */
export async function evaluate(
  run: Run | AgentRunResult,
  input: EvalCase | EvalCaseInput,
  rules: RuleRegistry = defaultRuleRegistry,
): Promise<CaseEvaluation> {
  const evalCase = parseCase(input, `case ${JSON.stringify((input as { id?: unknown })?.id ?? "?")}`, rules);
  const ids = evaluatorsForCase(evalCase, rules);
  const results = await Promise.all(ids.map((id) => runCaseEvaluator(id, run, evalCase, rules)));
  return evaluationOf(evalCase, ids, results);
}

/** A run judged while it is read (see evaluateStream): the evaluation, and the run as reports see it. */
export interface StreamedEvaluation {
  evaluation: CaseEvaluation;
  /**
   * The run without its events when every evaluator visited it (its meta, agents, notes and result
   * lines), else the whole run.
   */
  run: Run;
  /** How many tool calls the run made. */
  toolCalls: number;
}

/** How evaluateStream judges what the stream alone does not tell. */
export interface EvaluateStreamOptions {
  /**
   * The stored AgentRunResult's fields besides its run (exit code, timeout), known once `read` has
   * returned (runResultInto's): the outcome is judged on them with the run, as `evaluate` judges a
   * whole AgentRunResult.
   */
  resultFields?: () => RunResultFields | undefined;
}

/**
 * Judges a run while `read` writes it into a sink event by event (e.g. @evals/core's
 * claudeOutputInto, or runResultInto), as `evaluate` judges it whole (an AgentRunResult's outcome
 * on its exit code and timeout too, given by `options.resultFields`). The rules that visit (every built-in one) grade
 * it as it comes and keep only what they need, so a long run is judged in bounded memory; behavior
 * expectations, an expected trajectory and rules with only `evaluate` get the whole run, kept for
 * them. Undefined when a fact about a call came after the call was graded (a denial only the result
 * line names, as older CLIs write it): judge the whole run with `evaluate` instead.
 */
export async function evaluateStream(
  read: (sink: RunSink) => void,
  input: EvalCase | EvalCaseInput,
  rules: RuleRegistry = defaultRuleRegistry,
  options: EvaluateStreamOptions = {},
): Promise<StreamedEvaluation | undefined> {
  const evalCase = parseCase(input, `case ${JSON.stringify((input as { id?: unknown })?.id ?? "?")}`, rules);
  const ids = evaluatorsForCase(evalCase, rules);
  const visiting = new Map<
    EvaluatorId,
    { options: Record<string, unknown>; visit: NonNullable<AnyRuleVisit> }
  >();
  for (const id of ids) {
    const visit = rules.get(id)?.visit;
    if (visit) visiting.set(id, { options: ruleOptionsFromCase(id, evalCase, rules) ?? {}, visit });
  }
  const needsWholeRun = ids.some(
    (id) => id !== "outcome" && !visiting.has(id) && !(id === "behavior" && !hasExpectations(evalCase)),
  );
  const contexts = new Map<EvaluatorId, ReturnType<typeof newRuleContext>>();
  const stream = new RunStreamVisit(
    (soFar) =>
      [...visiting].map(([id, { options, visit }]) => {
        const context = newRuleContext(id, options as RuleOptionsBase, soFar);
        contexts.set(id, context as never);
        return visit(options, context) as RunVisitor<RuleOutcome>;
      }),
    { keepRun: needsWholeRun },
  );
  read(stream);
  const stored = options.resultFields?.();
  const outcomes = stream.end() as RuleOutcome[];
  if (!stream.exact) return undefined;
  const run = stream.run();
  const judged: Run | AgentRunResult = stored ? { ...stored, run } : run;
  const visited = new Map(
    [...visiting.keys()].map((id, position) => [id, outcomes[position] as RuleOutcome]),
  );
  const results = await Promise.all(
    ids.map((id) => {
      const outcome = visited.get(id);
      const context = contexts.get(id);
      if (outcome && context) return resultOf(id, context, outcome);
      if (id === "behavior" && !needsWholeRun) return behaviorOfAnyRun(run, stream.calls);
      return runCaseEvaluator(id, judged, evalCase, rules);
    }),
  );
  return { evaluation: evaluationOf(evalCase, ids, results), run, toolCalls: stream.calls };
}

type AnyRuleVisit = NonNullable<ReturnType<RuleRegistry["get"]>>["visit"];

/** Whether the case expects anything of the run's behavior (else behavior passes on any run). */
function hasExpectations(evalCase: EvalCase): boolean {
  return Object.values(evalCase.behavior ?? {}).some((value) => value !== undefined);
}

/** behavior without expectations (it passes) on a run read while it was graded: its call count told. */
function behaviorOfAnyRun(run: Run, toolCalls: number): EvaluatorResult {
  const result = behavior(run, {});
  return { ...result, metadata: { ...result.metadata, toolCalls } };
}

/**
 * An evaluator's reasons, each made once as the case's line "<evaluator>: <reason>": the verdict's
 * reason is a slice of that line (V8 keeps a slice of a long string as a pointer into it), so a long
 * run's reason per violation holds its text once, not once for the verdict and again for the case.
 */
class ReasonLines {
  /** The case's lines, "<evaluator>: <reason>". */
  readonly lines: string[] = [];
  /** The verdict's reasons: each line without its "<evaluator>: ". */
  readonly reasons: string[] = [];
  constructor(private readonly evaluator: string) {}

  add(...parts: string[]): void {
    this.addLine(flatJoin(this.evaluator, ": ", ...parts));
  }

  /** A reason made already as its line, "<evaluator>: <reason>". */
  addLine(line: string): void {
    this.lines.push(line);
    this.reasons.push(line.slice(this.evaluator.length + 2));
  }
}

/** The case's verdict from its evaluators' results, in order. */
function evaluationOf(evalCase: EvalCase, ids: EvaluatorId[], results: EvaluatorResult[]): CaseEvaluation {
  const judged = ids.map((id, position) => judge(id, results[position] as EvaluatorResult, evalCase));
  const verdicts = judged.map(({ verdict }) => verdict);
  const reasons = judged.flatMap(({ verdict, lines }) => (verdict.ok ? [] : lines));
  return {
    caseId: evalCase.id,
    ...(evalCase.name !== undefined ? { caseName: evalCase.name } : {}),
    passed: verdicts.every((verdict) => verdict.ok),
    score: meanScore(verdicts),
    ...(evalCase.threshold !== undefined ? { threshold: evalCase.threshold } : {}),
    verdicts,
    results,
    expectedViolations: verdicts.flatMap((verdict) => verdict.expectedViolations),
    reasons,
  };
}

/** The mean of the verdicts' scores, 1 when there are none (as the harness scores a trial). */
export function meanScore(verdicts: Pick<EvaluatorVerdict, "score">[]): number {
  return verdicts.length === 0
    ? 1
    : verdicts.reduce((sum, verdict) => sum + verdict.score, 0) / verdicts.length;
}

/** "a tool-usage violation of type bash-instead-of-grep", or with `count`, "2 tool-usage violations ...". */
function describeExpected(expected: ExpectedViolation, count?: number): string {
  const what =
    count === undefined
      ? `${withArticle(expected.rule)} violation`
      : `${count} ${expected.rule} violation${count === 1 ? "" : "s"}`;
  return [
    what,
    expected.type ? `of type ${expected.type}` : undefined,
    expected.severity && expected.severity !== "any" ? `with severity ${expected.severity}` : undefined,
  ]
    .filter(Boolean)
    .join(" ");
}

/** How an expected violation turned out, as one sentence. */
function outcomeMessage(expected: ExpectedViolation, matching: Violation[]): string {
  const count = matching.length;
  if (expected.shouldViolate) {
    return count > 0
      ? `${describeExpected(expected, count)} occurred, as expected`
      : `expected ${describeExpected(expected)}, but none occurred`;
  }
  if (count === 0) return `no ${describeExpected(expected).replace(/^an? /, "")}, as expected`;
  const first = matching[0]?.message;
  return `no ${describeExpected(expected).replace(/^an? /, "")} was expected, but ${count === 1 ? "one" : count} occurred${first ? `: ${first}` : ""}`;
}

/** An evaluator's verdict, and its reasons as the case's lines ("<evaluator>: <reason>"). */
function judge(
  id: EvaluatorId,
  result: EvaluatorResult,
  evalCase: EvalCase,
): { verdict: EvaluatorVerdict; lines: string[] } {
  const covered = new Set<Violation>();
  /** Violations the case asked for (shouldViolate: true), as opposed to forbidden ones. */
  const asked = new Set<Violation>();
  const why = new ReasonLines(id);
  const outcomes: ExpectedViolationOutcome[] = [];
  for (const expected of evalCase.expectedViolations) {
    if (expected.rule !== id) continue;
    const matching = result.violations.filter(
      (item) =>
        item.rule === expected.rule &&
        (expected.severity === undefined ||
          expected.severity === "any" ||
          item.severity === expected.severity) &&
        (expected.type === undefined || item.type === expected.type),
    );
    for (const item of matching) {
      covered.add(item);
      if (expected.shouldViolate) asked.add(item);
    }
    const passed = expected.shouldViolate ? matching.length > 0 : matching.length === 0;
    const message = outcomeMessage(expected, matching);
    outcomes.push({ ...expected, occurred: matching.length, passed, message });
    if (!passed) why.add(message);
  }
  for (const item of result.violations) {
    if (item.severity !== "error" || covered.has(item)) continue;
    // An error a rule reported holds its line already ("<rule>: <type>: <message>").
    const line = item.rule === id ? reasonLineOf(item) : undefined;
    if (line === undefined) why.add(item.type, ": ", item.message);
    else why.addLine(line);
  }
  const { reasons, lines } = why;
  const passed = reasons.length === 0;
  const score = passed ? 1 : result.score < 1 ? result.score : 0;
  const threshold = id === "behavior" || id === "outcome" ? undefined : evalCase.threshold;
  const verdict: EvaluatorVerdict = {
    evaluator: id,
    passed,
    score,
    ...(threshold !== undefined ? { threshold } : {}),
    ok: threshold === undefined ? passed : score >= threshold,
    reasons,
    expectedViolations: outcomes,
    result,
    // The result's own list when none was asked for (a long run's thousands are not copied).
    violations:
      asked.size === 0
        ? result.violations
        : result.violations.map((item) => (asked.has(item) ? { ...item, expected: true } : item)),
  };
  return { verdict, lines };
}
