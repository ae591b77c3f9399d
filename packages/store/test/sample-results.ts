import type { Run } from "@evals/core";
import { buildResults, type CaseResult, type CaseStatus, type ResultsFile } from "@evals/logging";

/** A trial's run as Claude Code's stream gives it: a Read, then the final result with its usage. */
function trialRun(tool: string): Run {
  return {
    version: 1,
    model: "claude-sonnet-4-5",
    claude_version: "2.1.330",
    sources: ["stream"],
    agents: [{ id: "main", type: "main" }],
    notes: [],
    events: [
      { index: 0, agent: "main", type: "user_message", text: "go" },
      { index: 1, agent: "main", type: "tool_call", id: "t1", name: tool, input: { file_path: "a.ts" } },
      { index: 2, agent: "main", type: "tool_result", id: "t1", output: "x", is_error: false },
      {
        index: 3,
        agent: "main",
        type: "final_result",
        subtype: "success",
        is_error: false,
        num_turns: 2,
        terminal_reason: "completed",
        usage: { input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 7 },
      },
    ],
  } as Run;
}

export function sampleCase(id: string, status: CaseStatus, trials = 1): CaseResult {
  const passed = status === "passed";
  return {
    id,
    name: `case ${id}`,
    suite: "sample",
    file: "cases/sample.yaml",
    tags: ["smoke"],
    status,
    scores: [{ scorer: "rules", score: passed ? 1 : 0, passed }],
    trials: Array.from({ length: trials }, (_, trial) => ({
      trial,
      status,
      scores: [{ scorer: "rules", score: passed ? 1 : 0, passed }],
      violations: passed
        ? []
        : [
            {
              rule: "read-before-edit",
              type: "edit-without-read",
              severity: "error" as const,
              message: "edited a.ts unread",
              trial,
            },
          ],
      duration_ms: 1500,
      origin: "replay" as const,
      run_id: `${id}-${trial}`,
      output_dir: `/tmp/runs/${id}-${trial}`,
      run: trialRun(passed ? "Read" : "Edit"),
    })),
    violations: passed
      ? []
      : Array.from({ length: trials }, (_, trial) => ({
          rule: "read-before-edit",
          type: "edit-without-read",
          severity: "error" as const,
          message: "edited a.ts unread",
          trial,
        })),
    duration_ms: 1500 * trials,
  };
}

/** A run's results over `statuses` (case `c<i>` gets statuses[i]), finishing at `finishedAt`. */
export function sampleResults(
  statuses: CaseStatus[],
  finishedAt: string,
  meta: Partial<ResultsFile["meta"]> = {},
): ResultsFile {
  const finished = new Date(finishedAt);
  return buildResults(
    statuses.map((status, i) => sampleCase(`c${i}`, status)),
    {
      suite: "sample",
      startedAt: new Date(finished.getTime() - 60_000),
      finishedAt: finished,
      meta: {
        git_commit: "0123456789abcdef0123456789abcdef01234567",
        git_branch: "main",
        git_dirty: false,
        ...meta,
      },
    },
  );
}
