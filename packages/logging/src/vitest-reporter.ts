import { relative, resolve } from "node:path";
import type { Reporter, TestCase, TestModule, TestSuite, Vitest } from "vitest/node";
import type { CaseResult } from "./case-result.js";
import { EvalTestMetaSchema } from "./case-result.js";
import { formatCasesTable } from "./cases-table.js";
import { fieldPath } from "./json-results.js";
import { LiveLogger, type LogMode, logModeFromEnv } from "./live-logger.js";
import { originLabel, paidFor } from "./origin.js";
import { readRunComparisons } from "./run-comparisons.js";
import { formatSessionTree } from "./session-format.js";
import { buildSessionTree } from "./session-tracker.js";
import { type Shard, shardFromEnv, shardResultsDir } from "./shard.js";
import { type OutputStream, palette, shouldUseColor } from "./terminal.js";
import { type WriteReportsOptions, type WrittenReports, writeReports } from "./write-reports.js";

export interface EvalReporterOptions
  extends Pick<WriteReportsOptions, "junit" | "html" | "includeRuns" | "htmlOptions" | "suite"> {
  /** Results folder, relative to vitest's root (default "results"). */
  outputDir?: string;
  /** Write the reports at the end of the run (default true). */
  write?: boolean;
  /** Where to print (default process.stdout). */
  stream?: OutputStream;
  /** normal or verbose (default from EVALS_VERBOSE / EVALS_DEBUG). */
  mode?: LogMode;
  color?: boolean;
  /**
   * Per-case lines (subagents started and finished, the verdict) and, on a terminal, a progress line.
   * Default: on when no other console reporter (default, verbose, dot, tree, ...) is configured.
   */
  caseLines?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** vitest's own reporters that already print each test: with one of them we print tables only. */
const CONSOLE_REPORTERS = new Set([
  "default",
  "verbose",
  "dot",
  "tree",
  "basic",
  "tap",
  "tap-flat",
  "minimal",
  "agent",
]);

/**
 * A vitest reporter for eval suites. It reads the case result describeEval attaches to each test
 * (`task.meta.evalCase`, see EvalTestMeta), prints each suite's table of cases, scores and verdicts
 * when its file finishes, and at the end writes results/latest.json, the history file, junit.xml
 * and report.html. Tests without eval metadata are left to the other reporters.
 */
export class EvalReporter implements Reporter {
  private readonly options: EvalReporterOptions;
  private readonly stream: OutputStream;
  private readonly color: boolean;
  private readonly mode: LogMode;
  /** This machine's shard of the run (EVALS_SHARD), read when the run starts. */
  private shard: Shard | undefined;
  private root = process.cwd();
  private startedAt = new Date();
  private logger: LiveLogger | undefined;
  private collected = 0;
  private readonly invalid = new Set<string>();

  constructor(options: EvalReporterOptions = {}) {
    this.options = options;
    const env = options.env ?? process.env;
    this.stream = options.stream ?? process.stdout;
    this.color = options.color ?? shouldUseColor(this.stream, env);
    this.mode = options.mode ?? logModeFromEnv(env);
  }

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
    const files = vitest.config.shard;
    // With CaseShardSequencer, vitest's --shard is a case-level shard, as EVALS_SHARD is.
    const sequencer = vitest.config.sequence.sequencer as unknown;
    const caseShards =
      typeof sequencer === "function" && (sequencer as { casesNotFiles?: boolean }).casesNotFiles === true;
    this.shard =
      shardFromEnv(this.options.env ?? process.env) ?? (caseShards && files ? { ...files } : undefined);
    if (files && !this.shard) {
      this.stream.write(
        `evals: vitest --shard=${files.index}/${files.count} splits the test files, not their cases, and these results are no shard's (evals merge refuses them): for case-level shards run every file with EVALS_SHARD=${files.index}/${files.count} instead\n`,
      );
    }
    this.startedAt = new Date();
    const others = (vitest.config.reporters ?? []).some((entry) => {
      const name = Array.isArray(entry) ? entry[0] : entry;
      return typeof name === "string" && CONSOLE_REPORTERS.has(name);
    });
    const caseLines = this.options.caseLines ?? !others;
    if (caseLines) {
      this.logger = new LiveLogger({
        stream: this.stream,
        mode: this.mode,
        color: this.color,
        ...(this.options.env ? { env: this.options.env } : {}),
      });
    }
  }

  onTestRunStart(): void {
    this.startedAt = new Date();
    this.collected = 0;
    this.invalid.clear();
    this.logger?.start(0);
  }

  onTestModuleCollected(module: TestModule): void {
    for (const _test of module.children.allTests()) this.collected++;
    this.logger?.expect(this.collected);
  }

  onTestCaseResult(test: TestCase): void {
    const result = this.caseOf(test);
    if (!result || !this.logger) return;
    if (this.mode === "normal") {
      result.trials.forEach((trial) => {
        if (trial.run) this.logger!.replayRun(`${result.id}#${trial.trial}`, trial.run, result.name);
      });
    }
    this.logger.caseFinished(result);
  }

  onTestModuleEnd(module: TestModule): void {
    const cases = [...module.children.allTests()]
      .map((test) => this.caseOf(test))
      .filter((c) => c !== undefined);
    if (cases.length === 0) return;
    if (this.mode === "verbose") {
      for (const c of cases) {
        for (const trial of c.trials) {
          if (!trial.run) continue;
          const tree = buildSessionTree(trial.run);
          const notes = c.trials.length > 1 ? [`trial ${trial.trial + 1}`] : [];
          // A replayed run's cost is its recording's: nothing was spent on it here.
          if (!paidFor(trial)) {
            tree.root.costUsd = undefined;
            notes.push(originLabel(trial.origin) ?? "replayed");
          }
          this.write(
            `${c.name}${notes.length > 0 ? ` (${notes.join(", ")})` : ""}\n${formatSessionTree(tree, { color: this.color })}`,
          );
        }
      }
    }
    this.write(`\n${formatCasesTable(cases, { color: this.color, width: this.stream.columns ?? 120 })}`);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void | Promise<void> {
    // Files in path order, each file's tests in declaration order: the same order whichever file
    // finished first, and on every shard (a shard declares the other shards' cases as skipped tests).
    const ordered = [...modules].sort((a, b) => compareText(a.moduleId, b.moduleId));
    const tests = ordered.flatMap((module) => [...module.children.allTests()]);
    const positions: number[] = [];
    const found: CaseResult[] = [];
    tests.forEach((test, position) => {
      const result = this.caseOf(test);
      if (!result) return;
      found.push(result);
      positions.push(position);
    });
    const paint = palette(this.color);
    // A shard writes its results even when none of the cases fell to it: the merge needs every shard.
    if (found.length === 0 && !this.shard) {
      this.logger?.close();
      return;
    }
    const counts = { total: found.length, passed: 0, failed: 0, errored: 0, skipped: 0 };
    for (const c of found) {
      if (c.status === "passed") counts.passed++;
      else if (c.status === "failed") counts.failed++;
      else if (c.status === "error") counts.errored++;
      else counts.skipped++;
    }
    if (this.logger) this.logger.finish(counts);
    if (this.options.write === false) return;
    const root = resolve(this.root, this.options.outputDir ?? "results");
    // A shard writes into its own folder, its suites' comparisons too (describeCases under a shard).
    const dir = this.shard ? shardResultsDir(root, this.shard) : root;
    let written: WrittenReports;
    try {
      // The comparisons of suites this run ran under two variants go into the report (unless given).
      const comparisons = this.options.htmlOptions?.comparison ? [] : readRunComparisons(dir, this.startedAt);
      written = writeReports(found, {
        dir,
        cwd: this.root,
        startedAt: this.startedAt,
        finishedAt: new Date(),
        ...pick(this.options, ["junit", "html", "includeRuns", "htmlOptions", "suite"]),
        ...(comparisons.length > 0
          ? { htmlOptions: { ...this.options.htmlOptions, comparison: comparisons } }
          : {}),
        // A shard's results keep every run and say where each case stands, for mergeShardResults.
        ...(this.shard ? { includeRuns: "all" as const, meta: { shard: { ...this.shard, positions } } } : {}),
      });
      const { files } = written;
      const show = (file: string) => {
        const near = relative(process.cwd(), file);
        return near && !near.startsWith("..") ? near : file;
      };
      const lines = [
        `${paint.gray("results")} ${show(files.latest)}  ${paint.gray(`(history: ${show(files.history)})`)}`,
      ];
      if (files.junit) lines.push(`${paint.gray("junit  ")} ${show(files.junit)}`);
      if (files.html)
        lines.push(
          `${paint.gray("report ")} ${paint.bold(show(files.html))}  ${paint.gray("(open it in a browser)")}`,
        );
      this.stream.write(`${lines.join("\n")}\n`);
    } catch (error) {
      this.stream.write(`${paint.red("Could not write the eval reports:")} ${(error as Error).message}\n`);
      process.exitCode = 1;
      return;
    }
    return this.reportsWritten(written);
  }

  /**
   * Called once a run's reports are written, with the results (every trial's run in them) and the
   * files: a subclass records the run elsewhere (@evals/store's reporter records it in the results
   * database). Vitest waits for it before it exits.
   */
  protected reportsWritten(_written: WrittenReports): void | Promise<void> {}

  private write(text: string): void {
    if (this.logger) this.logger.write(text);
    else this.stream.write(text);
  }

  /** The test's eval case, reconciled with what vitest saw (a test that threw after scoring failed). */
  private caseOf(test: TestCase): CaseResult | undefined {
    const meta = test.meta() as { evalCase?: unknown };
    if (meta.evalCase === undefined) return undefined;
    const parsed = EvalTestMetaSchema.safeParse(meta);
    if (!parsed.success) {
      if (!this.invalid.has(test.id)) {
        this.invalid.add(test.id);
        const issue = parsed.error.issues[0]!;
        this.stream.write(
          `${palette(this.color).yellow("evals:")} ignoring the eval metadata of "${test.fullName}" (field ${fieldPath(issue.path)}): ${issue.message}\n`,
        );
      }
      return undefined;
    }
    const { meta_version: _version, ...evalCase } = parsed.data.evalCase;
    const result: CaseResult = { ...evalCase };
    result.suite ??= suiteName(test);
    result.file ??= relative(this.root, test.module.moduleId);
    const state = test.result().state;
    if (state === "failed" && result.status === "passed") {
      result.status = "failed";
      const message = test.result().errors?.[0]?.message;
      if (message) result.error = message;
    } else if (state === "skipped" && result.trials.length === 0) {
      result.status = "skipped";
    }
    return result;
  }
}

/** The describe block the test sits in (describeEval's name), else undefined. */
function suiteName(test: TestCase): string | undefined {
  const parent = test.parent as TestSuite | TestModule;
  return parent.type === "suite" ? parent.name : undefined;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function pick<T extends object, K extends keyof T>(value: T, keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) if (value[key] !== undefined) out[key] = value[key];
  return out;
}
