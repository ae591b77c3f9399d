import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createRedactor, formatJsonSchema, resolveOptionPaths } from "@evals/core";
import { type AgentOptions, AgentOptionsSchema, type EvalCase, resolveAgentPaths } from "@evals/evaluators";
import {
  buildResults,
  compareResults,
  formatComparisonTable,
  formatDifference,
  type ResultsComparison,
  type ResultsFile,
  renderComparisonHtml,
  type Shard,
  slug,
  VARIANTS_FOLDER,
  writeFileAtomic,
} from "@evals/logging";
import { LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import type { CaseModels } from "./case-models.js";
import type { CaseOutcome } from "./evaluate-case.js";
import type { RunnerRegistry } from "./runner-registry.js";
import type { TrialRunOptions, TrialVariant } from "./trial.js";

/**
 * With/without comparisons: the same cases, trials and fixtures run under two named variants (with
 * and without a skill, a plugin, a hook, a CLAUDE.md, a system prompt; two models), then compared
 * with @evals/logging's compareResults (Wilson intervals per side, Newcombe's interval of B − A,
 * "within noise" when it contains 0).
 */

/** One side of a comparison: what it changes in every case's run, and its name. */
export interface Variant {
  /** Its name: in the table, in run ids (`<suite>-<case>-<variant>-t1-…`) and recordings (`<case>.<variant>.<hash>`). */
  name: string;
  description?: string;
  /**
   * Case `agent:` options laid over each case's own (`env` and `options` merged, the variant's winning):
   * e.g. `{ options: { pluginDirs: ["./my-plugin"] } }`, `{ options: { appendSystemPrompt: "…" } }`,
   * `{ model: "claude-opus-4-1" }`, `{ fixture: "./project-with-claude-md" }`. Relative paths are against
   * the current folder (in a variants file: against that file; the runners' path options too).
   */
  agent?: AgentOptions;
  /**
   * runAgent options that win over every other (the case's, the suite's `runAgent`, what a task
   * gives runCase): e.g. `{ pluginDirs: [] }` to run a task that installs a plugin without it.
   */
  runAgent?: Partial<TrialRunOptions>;
  /** The scripted model of this variant's runs (what its recordings are made from); default the suite's. */
  model?: CaseModels;
  /**
   * Whether this variant's failing cases fail the suite (default true). A baseline expected to do
   * worse (the agent without the skill) says `false`: it is compared, not gated.
   */
  mustPass?: boolean;
}

export const VARIANTS_FILE_VERSION = 1 as const;

const VariantNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]*$/, "a variant name: lower-case letters, digits, '.', '_' or '-'")
  .max(40);

/** A variant in a variants file (no scripted model or runAgent functions: those are for code). */
export const VariantFileEntrySchema = z
  .object({
    name: VariantNameSchema,
    description: z.string().optional(),
    /** Case `agent:` options laid over each case's (paths relative to the variants file). */
    agent: AgentOptionsSchema.optional(),
    /** false: a baseline, compared but not gated (its failing cases do not fail the run). */
    mustPass: z.boolean().optional(),
  })
  .strict();

/** `evals run --variants <file>`: two variants, A (the baseline) then B. */
export const VariantsFileSchema = z
  .object({
    version: z.literal(VARIANTS_FILE_VERSION),
    description: z.string().optional(),
    variants: z
      .array(VariantFileEntrySchema)
      .length(2, "give exactly two variants: A (the baseline) then B")
      .refine((variants) => variants[0]?.name !== variants[1]?.name, "the two variants need different names"),
  })
  .strict();

/** The JSON Schema (draft 2020-12) of the variants file, from its zod schema. */
export function variantsJsonSchema(): Record<string, unknown> {
  return formatJsonSchema("harness", "variants", VariantsFileSchema);
}

/** A variants file that cannot be used; the message says where (file:line:column, field). */
export class VariantsFileError extends Error {
  override readonly name = "VariantsFileError";
}

/**
 * Reads a variants file (YAML or JSON): exactly two variants, A then B, their `agent` paths made
 * absolute against the file's folder.
 *
 * ```yaml
 * version: 1
 * variants:
 *   - name: without-skill
 *     mustPass: false
 *   - name: with-skill
 *     agent: { pluginDirs: [../my-plugin] }
 * ```
 */
export function loadVariants(file: string, runners?: RunnerRegistry): [Variant, Variant] {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new VariantsFileError(`${file}: cannot be read: ${(error as Error).message}`);
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const where = (offset: number | undefined) => {
    if (offset === undefined) return "";
    const { line, col } = lineCounter.linePos(offset);
    return `:${line}:${col}`;
  };
  const syntax = document.errors[0];
  if (syntax) throw new VariantsFileError(`${file}${where(syntax.pos[0])}: invalid YAML: ${syntax.message}`);
  const parsed = VariantsFileSchema.safeParse(document.toJS());
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const fieldPath = issue.path.map(String);
    // The deepest node of the path the document has: where the problem is.
    let offset: number | undefined;
    for (let depth = fieldPath.length; depth >= 0 && offset === undefined; depth--) {
      const node = depth === 0 ? document.contents : document.getIn(fieldPath.slice(0, depth), true);
      offset = (node as { range?: [number, number, number] } | undefined)?.range?.[0];
    }
    const field = fieldPath.length > 0 ? ` (field ${fieldPath.join(".")})` : "";
    throw new VariantsFileError(`${file}${where(offset)}${field}: ${issue.message}`);
  }
  const base = dirname(path);
  // Which runner a variant's options are for is known per case: the path options of every registered runner resolve here.
  const pathOptions = (runners?.list() ?? []).flatMap((runner) => runner.pathOptions ?? []);
  const [a, b] = parsed.data.variants.map(
    (entry): Variant => ({
      ...entry,
      ...(entry.agent ? { agent: variantAgentPaths(entry.agent, base, pathOptions) } : {}),
    }),
  );
  return [a!, b!];
}

/** Checks the variants a suite was given: two, named, the names different. */
export function checkVariants(variants: readonly Variant[]): [Variant, Variant] {
  if (variants.length !== 2)
    throw new Error(`variants: give exactly two variants, A (the baseline) then B; got ${variants.length}`);
  for (const variant of variants) {
    const name = VariantNameSchema.safeParse(variant.name);
    if (!name.success)
      throw new Error(`variants: ${JSON.stringify(variant.name)} is not ${name.error.issues[0]!.message}`);
  }
  if (variants[0]!.name === variants[1]!.name)
    throw new Error(`variants: the two variants are both named ${JSON.stringify(variants[0]!.name)}`);
  return [variants[0]!, variants[1]!];
}

/** The case as the variant runs it: the variant's `agent` options laid over the case's. */
export function variantCase<Case extends EvalCase>(evalCase: Case, variant: Variant): Case {
  if (!variant.agent) return evalCase;
  const agent = resolveAgentPaths(variant.agent, process.cwd());
  const env = evalCase.agent.env || agent.env ? { ...evalCase.agent.env, ...agent.env } : undefined;
  const options =
    evalCase.agent.options || agent.options ? { ...evalCase.agent.options, ...agent.options } : undefined;
  return {
    ...evalCase,
    agent: { ...evalCase.agent, ...agent, ...(env ? { env } : {}), ...(options ? { options } : {}) },
  };
}

/** A variants file's agent options with its paths (the fixture, the runners' path options) made absolute. */
function variantAgentPaths(agent: AgentOptions, base: string, pathOptions: readonly string[]): AgentOptions {
  const resolved = resolveAgentPaths(agent, base);
  return agent.options
    ? { ...resolved, options: resolveOptionPaths(agent.options, pathOptions, base) }
    : resolved;
}

/** What a trial needs to know of its variant. */
export function trialVariant(variant: Variant): TrialVariant {
  return { name: variant.name, ...(variant.runAgent ? { runAgent: variant.runAgent } : {}) };
}

/** One variant's side of a comparison run. */
export interface VariantRuns {
  variant: Variant;
  /** True when every case of this variant passed. */
  passed: boolean;
  /** Every case's outcome, in the cases' order. */
  outcomes: CaseOutcome[];
  /** Its results file (every trial's run kept, for the turns, tool calls and tokens). */
  results: ResultsFile;
}

/** Two variants of the same cases, run and compared. */
export interface VariantsResult {
  /** A (the baseline) then B. */
  runs: [VariantRuns, VariantRuns];
  /** compareResults(A, B), labelled with the variants' names: what `comparison.json` holds. */
  comparison: ResultsComparison;
}

/** One variant's outcomes, to compare; under a shard, where each outcome's case stands among the suite's. */
export interface VariantOutcomes {
  variant: Variant;
  outcomes: CaseOutcome[];
  /** With `shard`: each outcome's case's position among all the cases (default 0, 1, 2…). */
  positions?: number[];
}

/**
 * Compares the outcomes of the two variants (cases matched by suite and id). With `shard`, each
 * variant's results carry `meta.shard` (this shard and each case's position), so `evals merge`
 * can put the shards' variant results back together (mergeShardVariants).
 */
export function compareVariantOutcomes(
  sides: [VariantOutcomes, VariantOutcomes],
  options: { suite?: string; shard?: Shard } = {},
): VariantsResult {
  const runs = sides.map(({ variant, outcomes, positions }) => ({
    variant,
    passed: outcomes.every((outcome) => outcome.passed),
    outcomes,
    results: buildResults(
      outcomes.map((outcome) => outcome.result),
      {
        ...(options.suite ? { suite: options.suite } : {}),
        meta: {
          variant: { name: variant.name, gated: variant.mustPass !== false },
          ...(options.shard
            ? { shard: { ...options.shard, positions: positions ?? outcomes.map((_o, n) => n) } }
            : {}),
        },
      },
    ),
  })) as [VariantRuns, VariantRuns];
  const comparison = compareResults(runs[0].results, runs[1].results, {
    labels: [runs[0].variant.name, runs[1].variant.name],
  });
  return { runs, comparison };
}

/** The files writeVariantReports wrote. */
export interface VariantReportFiles {
  /** `<dir>/<variant>.json` by variant name: each variant's results file. */
  results: Record<string, string>;
  /** `<dir>/comparison.json`: the comparison (@evals/logging's `comparison` format). */
  comparison: string;
  /** `<dir>/comparison.html`: A and B side by side (renderComparisonHtml). */
  html: string;
}

/** What writeVariantReports writes of a variant: its name and results (a VariantRuns is one). */
export interface VariantReport {
  /** Its name, and `mustPass: false` for a baseline whose failures fail no run. */
  variant: { name: string; mustPass?: boolean };
  results: ResultsFile;
}

/** The suite a variant's cases stand under in a run's own report: "<suite> › <variant>". */
export function variantSuite(suite: string, variant: { name: string }): string {
  return `${suite} › ${variant.name}`;
}

/** Where describeCases writes a suite's comparison: `results/variants/<suite slug>/`. */
export function variantReportsDir(suite: string, root = "results"): string {
  return resolve(root, VARIANTS_FOLDER, slug(suite));
}

/**
 * Writes each variant's results file (`<dir>/<variant>.json`, every run kept), the comparison
 * (`<dir>/comparison.json`) and its page (`<dir>/comparison.html`), each atomically.
 */
export function writeVariantReports(
  result: {
    runs: readonly [VariantReport, VariantReport];
    comparison: ResultsComparison;
  },
  options: { dir: string },
): VariantReportFiles {
  const dir = resolve(options.dir);
  const results: Record<string, string> = {};
  const redactor = createRedactor();
  for (const run of result.runs) {
    const file = join(dir, `${run.variant.name}.json`);
    writeFileAtomic(file, `${JSON.stringify(redactor.value(run.results), null, 2)}\n`);
    results[run.variant.name] = file;
  }
  const comparison = join(dir, "comparison.json");
  const compared = redactor.value(result.comparison);
  writeFileAtomic(comparison, `${JSON.stringify(compared, null, 2)}\n`);
  const html = join(dir, "comparison.html");
  writeFileAtomic(html, renderComparisonHtml(compared));
  return { results, comparison, html };
}

/**
 * The verdict in words, overall then per case:
 * "with-skill − without-skill overall: +100% [+21…+100] over 3 case(s) (…): with-skill passes more often than without-skill (the 95% interval excludes 0)."
 * "… within noise: these trials cannot tell with-skill from without-skill apart (the 95% interval contains 0); run more trials to decide."
 */
export function comparisonVerdict(comparison: ResultsComparison): string {
  const a = comparison.a.label;
  const b = comparison.b.label;
  const { overall } = comparison;
  const head = `${b} − ${a} overall: ${formatDifference(overall.difference)} over ${comparison.cases.length} case(s) (${overall.a.trials} trial(s) of ${a}, ${overall.b.trials} of ${b})`;
  const lines = [`${head}: ${verdictWords(overall.difference.verdict, a, b)}`];
  const noisy = comparison.cases.filter((c) => c.difference.verdict === "within noise");
  if (noisy.length > 0 && comparison.cases.length > 1)
    lines.push(
      `${noisy.length} of ${comparison.cases.length} case(s) on their own are within noise: ${noisy.map((c) => c.id).join(", ")}.`,
    );
  return lines.join("\n");
}

function verdictWords(verdict: "better" | "worse" | "within noise", a: string, b: string): string {
  if (verdict === "better") return `${b} passes more often than ${a} (the 95% interval excludes 0).`;
  if (verdict === "worse") return `${b} passes less often than ${a} (the 95% interval excludes 0).`;
  return `within noise: these trials cannot tell ${b} from ${a} apart (the 95% interval contains 0); run more trials to decide.`;
}

/** The comparison as printed after a variants run: the table, the verdict in words, the files. */
export function formatVariantsReport(
  result: VariantsResult,
  options: {
    files?: VariantReportFiles;
    color?: boolean;
    width?: number;
    show?: (file: string) => string;
  } = {},
): string {
  const show = options.show ?? ((file: string) => file);
  const lines = [
    formatComparisonTable(result.comparison, {
      ...(options.color !== undefined ? { color: options.color } : {}),
      width: options.width ?? Number.POSITIVE_INFINITY,
    }).trimEnd(),
    "",
    comparisonVerdict(result.comparison),
  ];
  const baselines = result.runs
    .filter((run) => run.variant.mustPass === false)
    .map((run) => run.variant.name);
  if (baselines.length > 0) lines.push(`Not gated (mustPass: false): ${baselines.join(", ")}.`);
  if (options.files) {
    lines.push(
      `Comparison: ${show(options.files.comparison)} (page: ${show(options.files.html)}); ` +
        `results: ${Object.values(options.files.results).map(show).join(", ")}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
