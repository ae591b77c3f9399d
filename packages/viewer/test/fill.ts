import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RUN_FOLDER_FILES, type Run } from "@evals/core";
import { buildResults, type CaseResult, type CaseStatus, type ResultsFile } from "@evals/logging";
import { locateStore, Store } from "@evals/store";

/** A trial's run: the prompt, then `tools` called in order (each reading or editing a.ts), then the result. */
export function trialRun(tools: string[]): Run {
  const events: unknown[] = [{ index: 0, agent: "main", type: "user_message", text: "fix a.ts" }];
  tools.forEach((tool, i) => {
    events.push({
      index: events.length,
      agent: "main",
      type: "tool_call",
      id: `t${i}`,
      name: tool,
      input: { file_path: "a.ts" },
    });
    events.push({
      index: events.length,
      agent: "main",
      type: "tool_result",
      id: `t${i}`,
      output: `${tool} done`,
      is_error: false,
    });
  });
  events.push({
    index: events.length,
    agent: "main",
    type: "final_result",
    subtype: "success",
    is_error: false,
    num_turns: tools.length + 1,
    terminal_reason: "completed",
    total_cost_usd: 0.01 * tools.length,
    usage: { input_tokens: 100 * tools.length, output_tokens: 20, cache_read_input_tokens: 5 },
  });
  return {
    version: 1,
    model: "claude-sonnet-4-5",
    claude_version: "2.1.330",
    sources: ["stream"],
    agents: [{ id: "main", type: "main" }],
    notes: [],
    events,
  } as Run;
}

export interface PlannedCase {
  id: string;
  name?: string;
  /** The case file (absolute): its content is what tells runs of the same code apart. */
  file: string;
  status: CaseStatus;
  /** The tools each trial called (a passing trial Reads before it Edits). */
  tools?: string[];
  /** Where to write the trial's run folder (run.json); none when undefined. */
  runFolder?: string;
}

/** A case result as evals run writes it: one trial, its run, a violation when it failed. */
export function planned(c: PlannedCase): CaseResult {
  const passed = c.status === "passed";
  const tools = c.tools ?? (passed ? ["Read", "Edit"] : ["Edit"]);
  const run = trialRun(tools);
  if (c.runFolder) {
    mkdirSync(c.runFolder, { recursive: true });
    writeFileSync(join(c.runFolder, RUN_FOLDER_FILES.run), JSON.stringify(run));
  }
  const violations = passed
    ? []
    : [
        {
          rule: "read-before-edit",
          type: "edit-without-read",
          severity: "error" as const,
          message: "edited a.ts unread",
          trial: 0,
        },
      ];
  const score = { scorer: "rules", score: passed ? 1 : 0, passed };
  return {
    id: c.id,
    name: c.name ?? `case ${c.id}`,
    suite: "viewer",
    file: c.file,
    tags: [],
    status: c.status,
    scores: [score],
    trials: [
      {
        trial: 0,
        status: c.status,
        scores: [score],
        violations,
        duration_ms: 1200,
        origin: "replay" as const,
        run_id: `${c.id}-0`,
        ...(c.runFolder ? { output_dir: c.runFolder } : {}),
        run,
      },
    ],
    violations,
    duration_ms: 1200,
  };
}

export function results(cases: CaseResult[], finishedAt: Date, commit: string, branch = "main"): ResultsFile {
  return buildResults(cases, {
    suite: "viewer",
    startedAt: new Date(finishedAt.getTime() - 60_000),
    finishedAt,
    meta: { git_commit: commit, git_branch: branch, git_dirty: false },
  });
}

export async function openStore(db: string): Promise<Store> {
  return Store.open(locateStore({ db }) as Exclude<ReturnType<typeof locateStore>, { kind: "off" }>);
}
