import type { AgentRunResult } from "./agent-run.js";
import type { ResultSubtype } from "./claude/vocabulary.js";
import type { FinalResultEvent, Run } from "./run.js";
import { eventsOfType } from "./tool-calls.js";

// How a run ended: a fact about the run (its result lines, exit code and timeout), which every runner
// reports and every judge reads. Judging it against what a case expects is @evals/evaluators' job.

/**
 * The ways a run ends, most telling first:
 * - timeout: the run was stopped because its time was up;
 * - api_error: the API answered with an error (observed as `subtype: "success"`, `is_error: true`,
 *   `api_error_status`);
 * - max_turns: the agent stopped at its maximum number of turns (`error_max_turns`);
 * - error: any other error result (`is_error: true`: budget, error during execution, ...);
 * - killed: the CLI was killed by a signal;
 * - exit_code: the CLI exited with a nonzero code;
 * - no_result: the CLI wrote no result line;
 * - success: a result line without an error, and exit code 0 where it is known.
 */
export const RUN_OUTCOMES = [
  "success",
  "api_error",
  "max_turns",
  "error",
  "killed",
  "exit_code",
  "no_result",
  "timeout",
] as const;
export type RunOutcomeKind = (typeof RUN_OUTCOMES)[number];

/** How a run ended, with the facts it was judged on. */
export interface RunOutcome {
  /** undefined when the facts are not known (a run built from hook events alone). */
  kind: RunOutcomeKind | undefined;
  /** What happened, as an English sentence: "the API returned HTTP 400 (invalid_request_error): ...". */
  reason: string;
  /** The result line that decided it (the first with an error, else the last). */
  final?: FinalResultEvent;
  exitCode?: number | null;
  timedOut?: boolean;
}

const MAX_TEXT = 300;

function isAgentRunResult(value: Run | AgentRunResult): value is AgentRunResult {
  return "run" in value && "run_id" in value;
}

/**
 * How a run ended. From a Run alone only its result lines are known (a run with a stream but no
 * result line ended without one; a run built from hook events alone has no known outcome); from an
 * AgentRunResult also the exit code and the timeout.
 */
export function runOutcome(input: Run | AgentRunResult): RunOutcome {
  const result = isAgentRunResult(input) ? input : undefined;
  const run = result ? result.run : (input as Run);
  const finals = eventsOfType(run, "final_result");
  const final = finals.find((event) => event.is_error) ?? finals[finals.length - 1];
  const said = result ? (result as { error?: unknown }).error : undefined;
  // A stored run (a bare Run wrapped, a result.json read back) may not know its exit code.
  const exitCode =
    result && !(result.origin === "stored" && result.exit_code === null) ? result.exit_code : undefined;
  const facts = {
    ...(final ? { final } : {}),
    ...(exitCode !== undefined ? { exitCode } : {}),
    ...(result ? { timedOut: result.timed_out } : {}),
  };
  const outcome = (kind: RunOutcomeKind | undefined, reason: string): RunOutcome => ({
    kind,
    reason,
    ...facts,
  });
  if (result?.timed_out) {
    return outcome(
      "timeout",
      typeof said === "string" && /timed out/.test(said) ? said : "the run timed out",
    );
  }
  if (final?.is_error) return errorOutcome(final, outcome);
  // A CLI that never started (E2BIG, ENOENT) has no exit code either, but nothing killed it.
  if (exitCode === null && typeof said === "string" && said.startsWith("claude could not be started")) {
    return outcome("no_result", said);
  }
  if (exitCode === null) {
    const signal = typeof said === "string" ? /killed by (SIG[A-Z0-9]+)/.exec(said)?.[1] : undefined;
    const how =
      typeof said === "string" && /aborted/.test(said)
        ? "the run was aborted and claude killed"
        : `claude was killed${signal ? ` by ${signal}` : " by a signal"}`;
    return outcome("killed", `${how}${final ? "" : " before it wrote a result line"}`);
  }
  if (exitCode !== undefined && exitCode !== 0) {
    return outcome(
      "exit_code",
      final
        ? `claude exited with code ${exitCode} although its result line says ${final.subtype}`
        : `claude exited with code ${exitCode} without writing a result line`,
    );
  }
  if (!final) {
    const streamed =
      result !== undefined || run.sources.includes("stream") || run.sources.includes("cassette");
    if (!streamed)
      return outcome(undefined, "the run's outcome is not known: it was built without the CLI's output");
    return outcome("no_result", "claude ended without writing a result line");
  }
  return outcome("success", "the run ended normally");
}

function errorOutcome(
  final: FinalResultEvent,
  outcome: (kind: RunOutcomeKind, reason: string) => RunOutcome,
): RunOutcome {
  const said = [...(final.errors ?? []), ...(final.result ? [final.result] : [])]
    .join("; ")
    .replace(/\s+/g, " ")
    .trim();
  const detail = said ? `: ${said.length > MAX_TEXT ? `${said.slice(0, MAX_TEXT - 1)}…` : said}` : "";
  if (final.api_error_status !== undefined || final.terminal_reason === "api_error") {
    const status = final.api_error_status !== undefined ? ` HTTP ${final.api_error_status}` : " an error";
    const type = final.api_error_type ? ` (${final.api_error_type})` : "";
    return outcome("api_error", `the API returned${status}${type}, which ended the run${detail}`);
  }
  if (final.subtype === ("error_max_turns" satisfies ResultSubtype)) {
    const max = (final.errors ?? [])
      .map((text) => /maximum number of turns \((\d+)\)/.exec(text)?.[1])
      .find(Boolean);
    return outcome(
      "max_turns",
      max
        ? `the agent stopped at the maximum of ${max} turns`
        : "the agent stopped at its maximum number of turns",
    );
  }
  const words = Object.hasOwn(ERROR_SUBTYPE_WORDS, final.subtype)
    ? ERROR_SUBTYPE_WORDS[final.subtype as ResultSubtype]
    : undefined;
  return outcome("error", `${words ?? "the run ended with an error"}${detail}`);
}

/** What an error result's subtype (one of core's RESULT_SUBTYPES) says about how the run ended. */
const ERROR_SUBTYPE_WORDS: Partial<Record<ResultSubtype, string>> = {
  error_max_budget_usd: "the run stopped at its budget",
  error_during_execution: "the run failed during execution",
};
