import type { EventPointer, Violation } from "@evals/core";
import type { TrialStats } from "@evals/logging";
import { describePassRule, formatPercent, type PassRule } from "./pass-rule.js";
import type { ScorerVerdict, TrialScores } from "./scoring.js";

/** What became of one trial, as the failure message tells it. */
export interface TrialReport {
  trial: number;
  runId: string;
  status: "passed" | "failed" | "error";
  scores?: TrialScores;
  /** Where the run's files are. */
  outputDir?: string;
  /** What went wrong with the agent's run itself (timeout, error result), when something did. */
  runError?: string;
  /** The private config/home/tmp folder kept for inspection. */
  sandboxDir?: string;
  /** Why the trial errored (the task threw, the trial timed out). */
  error?: string;
}

const MAX_VIOLATIONS = 8;

/**
 * The message of a failed case: the verdict against the pass rule, the trial statistics, and for
 * every trial that did not pass, each failing scorer with its score and threshold and what went wrong
 * (its violations with their place in the run, else its evidence). Never a bare `false`.
 */
export function caseFailureMessage(input: {
  caseName: string;
  passRule: PassRule;
  stats: TrialStats;
  trials: TrialReport[];
}): string {
  const { stats } = input;
  const lines: string[] = [];
  const verdict =
    stats.trials === 1
      ? `Case "${input.caseName}" failed.`
      : `Case "${input.caseName}" failed: ${stats.passed} of ${stats.trials} trials passed, and the suite needs ${describePassRule(input.passRule)}.`;
  lines.push(verdict);
  if (stats.trials > 1) lines.push(formatStats(stats));
  for (const trial of input.trials) {
    if (trial.status === "passed") continue;
    lines.push("", ...trialLines(trial, input.trials.length > 1));
  }
  return lines.join("\n");
}

/** "mean score 0.67 · pass rate 33.3% (95% CI 6.1%–79.2%) · pass@3 1.00 · pass^3 0.00" */
export function formatStats(stats: TrialStats): string {
  return [
    `mean score ${stats.mean_score.toFixed(2)}`,
    `pass rate ${formatPercent(stats.pass_rate)} (95% CI ${formatPercent(stats.ci_low)}–${formatPercent(stats.ci_high)})`,
    `pass@${stats.k} ${stats.pass_at_k.toFixed(2)}`,
    `pass^${stats.k} ${stats.pass_hat_k.toFixed(2)}`,
  ].join(" · ");
}

function trialLines(trial: TrialReport, several: boolean): string[] {
  const where = [`run ${trial.runId}`, ...(trial.outputDir ? [trial.outputDir] : [])].join(", ");
  const title = `${several ? `Trial ${trial.trial + 1}` : "The trial"} ${trial.status === "error" ? "errored" : "failed"} (${where})`;
  const lines = [`${title}:`];
  if (trial.error) lines.push(`  ${trial.error}`);
  for (const verdict of trial.scores?.verdicts ?? []) {
    if (!verdict.passed) lines.push(...scorerLines(verdict));
  }
  const scores = trial.scores;
  if (scores?.overall !== undefined && scores.mean < scores.overall) {
    lines.push(
      `  ✗ overall: mean score ${scores.mean.toFixed(2)} is below the overall threshold ${scores.overall.toFixed(2)}`,
    );
  }
  const passing = (scores?.verdicts ?? []).filter((verdict) => verdict.passed);
  if (passing.length > 0) {
    lines.push(
      `  passed: ${passing.map((verdict) => `${verdict.scorer} ${verdict.score.toFixed(2)}`).join(", ")}`,
    );
  }
  // Said once: not again when the trial's error or a violation (the outcome's) already says it.
  const said = (trial.scores?.verdicts ?? []).some((verdict) =>
    verdict.result.violations.some((violation) => violation.message === trial.runError),
  );
  if (trial.runError && trial.runError !== trial.error && !said)
    lines.push(`  the agent's run: ${trial.runError}`);
  if (trial.sandboxDir) lines.push(`  its config, home and tmp are kept in ${trial.sandboxDir}`);
  return lines;
}

function scorerLines(verdict: ScorerVerdict): string[] {
  if (verdict.error) return [`  ✗ ${verdict.scorer} threw: ${verdict.error}`];
  const needed =
    verdict.threshold !== undefined
      ? `score ${verdict.score.toFixed(2)}, needs ${verdict.threshold.toFixed(2)}`
      : `score ${verdict.score.toFixed(2)}; it has no threshold, so its own verdict (failed) decides`;
  const lines = [`  ✗ ${verdict.scorer}: ${needed}`];
  const violations = verdict.result.violations;
  for (const violation of violations.slice(0, MAX_VIOLATIONS))
    lines.push(`      - ${formatViolation(violation)}`);
  if (violations.length > MAX_VIOLATIONS)
    lines.push(`      … and ${violations.length - MAX_VIOLATIONS} more`);
  if (violations.length === 0) {
    const evidence = verdict.result.evidence.slice(0, 3);
    for (const item of evidence)
      lines.push(`      - ${item.type}: ${item.description}${formatPointer(item.pointer)}`);
    if (evidence.length === 0) lines.push("      (the scorer gave no violations or evidence)");
  }
  return lines;
}

function formatViolation(violation: Violation): string {
  return `[${violation.severity}] ${violation.type}: ${violation.message}${formatPointer(violation.pointer)}`;
}

function formatPointer(pointer: EventPointer | undefined): string {
  if (!pointer) return "";
  const parts = [
    ...(pointer.event_index !== undefined ? [`event ${pointer.event_index}`] : []),
    ...(pointer.tool_use_id ? [pointer.tool_use_id] : []),
    ...(pointer.agent && pointer.agent !== "main" ? [`agent ${pointer.agent}`] : []),
  ];
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}
