import { listToolCalls, type Run, type Violation } from "@evals/core";
import type { CaseEvaluation } from "../cases/evaluate.js";

export interface ReportOptions {
  /** Where the run came from, shown in the header. */
  source?: string;
  /**
   * List every violation and reason, info violations and evidence too (default: the first 10 errors
   * and warnings of each evaluator, and the first 10 reasons).
   */
  verbose?: boolean;
  /** How many tool calls the run made, when `run` holds only its skeleton (graded while read). */
  toolCalls?: number;
}

/** How many of a list (an evaluator's violations, the reasons) are shown without `verbose`. */
const SHOWN = 10;

/**
 * Pushes one line per item of `items` (only the first SHOWN without `verbose`, then a line saying how
 * many more there are), each indented by `indent`.
 */
function pushCapped<T>(
  lines: string[],
  items: readonly T[],
  indent: string,
  verbose: boolean | undefined,
  line: (item: T) => string,
): void {
  for (const item of items.slice(0, verbose ? items.length : SHOWN)) lines.push(`${indent}${line(item)}`);
  if (!verbose && items.length > SHOWN)
    lines.push(`${indent}... ${items.length - SHOWN} more (--verbose shows all)`);
}

function pointerText(item: Violation): string {
  const pointer = item.pointer;
  if (!pointer) return "";
  const parts = [
    pointer.event_index !== undefined ? `event ${pointer.event_index}` : undefined,
    pointer.tool_use_id,
    pointer.agent && pointer.agent !== "main" ? `agent ${pointer.agent}` : undefined,
  ].filter(Boolean);
  return parts.length > 0 ? `  [${parts.join(", ")}]` : "";
}

/** A readable verdict: one line per evaluator, its violations under it, then the reasons it failed. */
export function formatEvaluation(evaluation: CaseEvaluation, run?: Run, options: ReportOptions = {}): string {
  const lines: string[] = [];
  const title = evaluation.caseName ? `${evaluation.caseId} (${evaluation.caseName})` : evaluation.caseId;
  lines.push(
    `${evaluation.passed ? "PASS" : "FAIL"}  ${title}  score ${evaluation.score.toFixed(2)}${evaluation.threshold !== undefined ? ` (threshold ${evaluation.threshold})` : ""}`,
  );
  if (run) {
    const calls = options.toolCalls ?? listToolCalls(run).length;
    const agents = run.agents.map((agent) => (agent.id === "main" ? "main" : agent.type)).join(", ");
    lines.push(
      `  run ${run.id ?? "(no id)"}${options.source ? ` from ${options.source}` : ""}: ${calls} tool call${calls === 1 ? "" : "s"}, agents: ${agents}`,
    );
  }
  lines.push("");
  const width = Math.max(...evaluation.verdicts.map((verdict) => verdict.evaluator.length));
  for (const verdict of evaluation.verdicts) {
    const mark = verdict.ok ? "ok  " : "FAIL";
    const expected = verdict.expectedViolations.length > 0 ? "  (violations expected)" : "";
    lines.push(`  ${mark}  ${verdict.evaluator.padEnd(width)}  ${verdict.score.toFixed(2)}${expected}`);
    const shown = verdict.violations.filter((item) => options.verbose || item.severity !== "info");
    pushCapped(lines, shown, "          ", options.verbose, (item) => {
      const label = item.expected ? `${item.severity} (expected)` : item.severity;
      return `${label.padEnd(7)} ${item.type}: ${item.message}${pointerText(item)}`;
    });
    for (const outcome of verdict.expectedViolations) {
      lines.push(`          ${outcome.passed ? "ok  " : "FAIL"}    ${outcome.message}`);
    }
    if (options.verbose) {
      for (const item of verdict.result.evidence.slice(0, 20))
        lines.push(`          evidence ${item.description}`);
    }
  }
  lines.push("");
  if (evaluation.passed) lines.push("Verdict: PASS");
  else {
    lines.push(
      `Verdict: FAIL (${evaluation.reasons.length} reason${evaluation.reasons.length === 1 ? "" : "s"})`,
    );
    // Capped as the lists above: a long run's reasons are every violation again (150,000 lines).
    pushCapped(lines, evaluation.reasons, "  ", options.verbose, (reason) => `- ${reason}`);
  }
  return lines.join("\n");
}
