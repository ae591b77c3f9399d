import { appendFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { formatPercent, ResultsFileError, readResults, writeFileAtomic } from "@evals/logging";
import {
  compareStoredRuns,
  describeLocation,
  findBaselineRun,
  githubReport,
  latestRun,
  locateStore,
  type Store,
  type StoredRunComparison,
  type StoredRunInfo,
  storedRun,
} from "@evals/store";
import type { CommandIo } from "./command.js";
import { BadInputError, SetupError } from "./errors.js";
import { EXIT } from "./exit-codes.js";
import { NOT_A_RESULTS_FILE } from "./input-file.js";
import { openResultsDatabase } from "./results-database.js";

export interface BaselineArgs {
  baseline: string;
  /** The run compared: a stored run id, else a results file, else the latest stored run. */
  run?: string;
  resultsFile?: string;
  db?: string;
  force?: boolean;
  format: "text" | "json" | "github";
  failOn: "regression" | "none";
  summaryFile?: string;
  commentFile?: string;
}

/**
 * `evals compare --baseline <branch|commit|run id>`: this run against the most recent stored run of
 * its baseline. Exit 1 on a regression beyond noise (unless --fail-on none), 2 when a run is missing
 * or the two runs are not comparable (unless --force).
 */
export async function compareWithBaseline(args: BaselineArgs, io: CommandIo): Promise<number> {
  const say = (message: string) => {
    throw new BadInputError(message);
  };
  const location = locateStore(args.db !== undefined ? { db: args.db } : {});
  if (location.kind === "off") return say("--db off: --baseline needs the results database");
  const store = await openResultsDatabase(location);
  try {
    const candidate = await candidateRun(store, args);
    if (typeof candidate === "string") return say(candidate);
    const baseline = await findBaselineRun(store, args.baseline, { exclude: candidate.id });
    if (!baseline)
      return say(
        `no recorded run of the baseline ${args.baseline} (a run id, or a branch or commit runs were recorded on) in ${describeLocation(location)} other than run ${candidate.id}: run evals run on ${args.baseline}, or add its results with evals history import <results file>`,
      );
    const comparison = await compareStoredRuns(store, baseline.id, candidate.id);
    if (comparison.incomparable.length > 0 && !args.force)
      return say(
        `run ${candidate.id} cannot be compared with ${args.baseline}'s run ${baseline.id}: they differ in ${comparison.incomparable.join("; ")}. Compare them anyway with --force`,
      );
    if (args.format === "json") io.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
    else if (args.format === "text") io.stdout.write(formatStoredComparison(comparison, args.baseline));
    else writeGithub(comparison, args, io);
    const regressed =
      comparison.overall.change === "regressed" || comparison.cases.some((c) => c.change === "regressed");
    return regressed && args.failOn === "regression" ? EXIT.failed : EXIT.passed;
  } finally {
    await store.close();
  }
}

async function candidateRun(store: Store, args: BaselineArgs): Promise<StoredRunInfo | string> {
  if (args.run !== undefined)
    return (
      (await storedRun(store, args.run)) ??
      `--run ${args.run}: no complete run with that id (or id prefix) in the database`
    );
  if (args.resultsFile !== undefined) {
    const file = resolve(args.resultsFile);
    try {
      // The file's run is recorded (once: a run already there is not added again) and compared there.
      const { runId } = await store.record(readResults(file), "import", {
        dir: dirname(file),
        history: file,
      });
      return (await storedRun(store, runId)) ?? `${file}: its run could not be read back from the database`;
    } catch (error) {
      if (!(error instanceof ResultsFileError)) throw error;
      return `${error.message}\n${NOT_A_RESULTS_FILE}`;
    }
  }
  return (await latestRun(store)) ?? "no run recorded in the database yet: evals run records every run";
}

function writeGithub(comparison: StoredRunComparison, args: BaselineArgs, io: CommandIo): void {
  const report = githubReport(comparison);
  const stepSummary = process.env.GITHUB_STEP_SUMMARY;
  const summaryFile = args.summaryFile ?? stepSummary;
  if (!summaryFile) {
    throw new SetupError(
      "--format github: where does the job summary go? GITHUB_STEP_SUMMARY is not set (outside GitHub Actions): name a file with --summary-file <file>",
    );
  }
  // GitHub's summary file is shared by the job's steps: add to it. A file named here is written whole.
  if (args.summaryFile === undefined) appendFileSync(summaryFile, report.summary);
  else writeFileAtomic(resolve(summaryFile), report.summary);
  const commentFile = resolve(args.commentFile ?? "evals-pr-comment.md");
  writeFileAtomic(commentFile, report.comment);
  io.stdout.write(report.annotations);
  io.stderr.write(
    `evals compare: wrote the job summary to ${summaryFile} and the PR comment to ${commentFile}\n`,
  );
}

/** The comparison as text: the two runs, one line per case, the overall line. */
export function formatStoredComparison(comparison: StoredRunComparison, baseline: string): string {
  const signed = (value: number) =>
    `${value > 0 ? "+" : value < 0 ? "-" : "±"}${formatPercent(Math.abs(value))}`;
  const run = (info: StoredRunInfo) =>
    `${info.id.slice(0, 12)}${info.git_branch ? ` ${info.git_branch}` : ""}${info.git_commit ? ` @ ${info.git_commit.slice(0, 12)}` : ""} (${info.finished_at})`;
  const lines = [`A (baseline ${baseline}): ${run(comparison.a)}`, `B (this run):   ${run(comparison.b)}`];
  if (comparison.incomparable.length > 0)
    lines.push(`compared with --force: the runs differ in ${comparison.incomparable.join("; ")}`);
  lines.push("");
  const side = (c: StoredRunComparison["overall"]) =>
    `${c.a.passed}/${c.a.trials} -> ${c.b.passed}/${c.b.trials}  B − A ${signed(c.difference.difference)} [${signed(c.difference.ci_low)}, ${signed(c.difference.ci_high)}]  ${c.change}`;
  const deltas = (d: StoredRunComparison["overall"]["deltas"]) =>
    [
      d.cost_usd !== undefined
        ? `cost ${d.cost_usd >= 0 ? "+" : "-"}$${Math.abs(d.cost_usd).toFixed(4)}`
        : "",
      d.tokens !== undefined ? `tokens ${d.tokens >= 0 ? "+" : ""}${d.tokens.toFixed(0)}` : "",
      d.turns !== undefined ? `turns ${d.turns >= 0 ? "+" : ""}${d.turns.toFixed(1)}` : "",
      d.duration_ms !== undefined
        ? `time ${d.duration_ms >= 0 ? "+" : "-"}${(Math.abs(d.duration_ms) / 1000).toFixed(1)}s`
        : "",
    ]
      .filter(Boolean)
      .join(", ");
  for (const c of comparison.cases) {
    const name = c.suite ? `${c.suite} › ${c.case_id}` : c.case_id;
    lines.push(`${name}: ${side(c)}${deltas(c.deltas) ? `  (${deltas(c.deltas)})` : ""}`);
    if (c.flipped) {
      const d = c.divergence;
      const call = (step: { tool: string; input: unknown } | null) =>
        step ? `${step.tool} ${JSON.stringify(step.input)}` : "nothing (ended)";
      lines.push(
        d
          ? `  flipped; first differing step ${d.step + 1}: B called ${call(d.b)}, A ${call(d.a)}`
          : "  flipped; same tool calls in both runs (the case or its rules changed, not the trajectory)",
      );
    }
  }
  lines.push(
    `overall: ${side(comparison.overall)}${deltas(comparison.overall.deltas) ? `  (${deltas(comparison.overall.deltas)})` : ""}`,
  );
  const only = (title: string, cases: { suite: string | null; case_id: string }[]) => {
    if (cases.length > 0) lines.push(`${title}: ${cases.map((c) => c.case_id).join(", ")}`);
  };
  only("only in A", comparison.only_in_a);
  only("only in B", comparison.only_in_b);
  return `${lines.join("\n")}\n`;
}
