import { relative } from "node:path";
import type { EvalCase } from "@evals/evaluators";
import { type Shard, shardResultsDir } from "@evals/logging";
import { afterAll, describe } from "vitest";
import { type DescribeEvalOptions, defineEvalSuite, shardsOfSuite, suiteShard } from "./describe-eval.js";
import type { CaseOutcome } from "./evaluate-case.js";
import {
  type CaseList,
  type CaseSuiteOptions,
  caseSettingsOf,
  loadCaseList,
  variantSettingsOf,
} from "./run-case.js";
import { suiteRegistry } from "./runner-registry.js";
import {
  checkVariants,
  compareVariantOutcomes,
  formatVariantsReport,
  type Variant,
  type VariantOutcomes,
  type VariantReportFiles,
  type VariantsResult,
  variantCase,
  variantReportsDir,
  variantSuite,
  writeVariantReports,
} from "./variants.js";

/** Options of describeCases: the cases, and describeEval's options, each with a default for cases. */
export interface DescribeCasesOptions
  extends CaseSuiteOptions,
    Omit<DescribeEvalOptions<EvalCase>, "data" | "task" | "scorers" | "model" | "cassette" | "worktree"> {
  /** Case files or folders of them (relative to the current folder), or cases; or a function giving them. */
  cases: CaseList | (() => CaseList | Promise<CaseList>);
  /**
   * Runs every case under two variants, A (the baseline) then B, with the same trials and fixtures:
   * one test per case and variant (in a `describe` per variant), then the comparison is printed and
   * written to `variantsDir` (each variant's results, `comparison.json`, `comparison.html`).
   */
  variants?: readonly Variant[];
  /**
   * Compares the suite with a baseline without running the suite's cases twice: the baseline
   * variant runs `baseline.cases` of the suite again (not gated, under `<suite> › <name>`), and is
   * compared with the suite's own runs of them, labelled `baseline.against` (default "suite"). The
   * comparison is printed and written as with `variants`. Not together with `variants`.
   */
  baseline?: SuiteBaseline;
  /**
   * Where the comparison goes (default `results/variants/<suite slug>/`, relative to the cwd; under
   * a shard `results/shard-<i>-of-<n>/variants/<suite slug>/`, next to the shard's results, where
   * `evals merge` finds it).
   */
  variantsDir?: string;
  /** Called with the comparison once both variants have run (e.g. to assert on it). */
  onComparison?: (result: VariantsResult, files: VariantReportFiles) => void;
}

/** describeCases' `baseline`: a variant run beside the suite and compared with the suite's own runs. */
export interface SuiteBaseline extends Omit<Variant, "mustPass"> {
  /** The ids of the suite's cases it runs and the comparison covers (default: every case). */
  cases?: readonly string[];
  /** The suite's side's name in the comparison (default "suite"), e.g. "with-skill". */
  against?: string;
}

/**
 * A describeEval over case files: one test per case, each trial the suite's agent CLI (its runner) with the
 * case's prompt(s) and `agent` options in a fresh copy of its fixture (runCase), judged by the case's
 * own rules, expectations and expected violations (scorersForCase) unless `scorers` says otherwise.
 *
 * ```ts
 * describeCases("edits", {
 *   agent: claudeCodeRunner, // from @evals/claude-code
 *   cases: "cases/edits.yaml",
 *   model: agents,          // scripted models by case id: what `cassette` records
 *   cassette: true,         // cassettes/edits/<case id>.<hash>.recording.json, replayed afterwards
 *   trials: 3,
 * });
 * ```
 */
export function describeCases(suite: string, options: DescribeCasesOptions): void {
  if (options.variants && options.baseline)
    throw new Error(`describeCases "${suite}": give either variants or baseline, not both`);
  if (options.variants) {
    describeVariants(suite, options, checkVariants(options.variants));
    return;
  }
  if (options.baseline) {
    describeWithBaseline(suite, options, options.baseline);
    return;
  }
  defineEvalSuite<EvalCase>(
    suite,
    suiteOptions(options, async () => loadNamedCases(options)),
    (evalCase) => caseSettingsOf(options, evalCase),
  );
}

/** describeCases with `variants`: a describe per variant, then the comparison. */
function describeVariants(suite: string, options: DescribeCasesOptions, variants: [Variant, Variant]): void {
  describe(suite, () => {
    const outcomes: CaseOutcome[][] = [[], []];
    variants.forEach((variant, side) => {
      defineEvalSuite<EvalCase>(
        variant.name,
        suiteOptions(options, async () =>
          (await loadNamedCases(options)).map((evalCase) => variantCase(evalCase, variant)),
        ),
        // The suite stays the suite's (cases are matched by suite and id); the variant names the runs.
        (evalCase) => ({ ...variantSettingsOf(options, evalCase, variant), suite }),
        {
          onOutcome: (outcome, index) => {
            outcomes[side]![index] = outcome;
          },
          gate: variant.mustPass !== false,
          metaSuite: variantSuite(suite, variant),
          shardSuite: suite,
        },
      );
    });
    const shard = suiteShard(options.shard);
    afterAll(() => {
      // Each side's outcomes in the cases' order, with each case's position (a shard ran some).
      const sides = outcomes.map((list, side) => ({
        variant: variants[side]!,
        outcomes: list.filter((outcome) => outcome !== undefined),
        positions: [...list.keys()].filter((index) => list[index] !== undefined),
      }));
      reportComparison(suite, options, [sides[0]!, sides[1]!], shard);
    });
  });
}

/**
 * describeCases with `baseline`: the suite as without it, and beside it the baseline's runs of the
 * compared cases; once both have run, the baseline is compared with the suite's runs of those cases.
 */
function describeWithBaseline(suite: string, options: DescribeCasesOptions, baseline: SuiteBaseline): void {
  const [variant] = checkVariants([baseline, { name: baseline.against ?? "suite" }]);
  const against: Variant = { name: baseline.against ?? "suite" };
  const shard = suiteShard(options.shard);
  const compared = (evalCase: EvalCase) => !baseline.cases || baseline.cases.includes(evalCase.id);
  // Each side's outcomes by the case's position among the suite's cases.
  const outcomes: Map<number, CaseOutcome>[] = [new Map(), new Map()];
  let suiteCases: Promise<EvalCase[]> | undefined;
  const cases = () => {
    suiteCases ??= loadNamedCases(options);
    return suiteCases;
  };
  defineEvalSuite<EvalCase>(
    suite,
    suiteOptions(options, cases),
    (evalCase) => caseSettingsOf(options, evalCase),
    {
      onOutcome: (outcome, index) => {
        outcomes[1]!.set(index, outcome);
      },
    },
  );
  // The baseline declares every compared case on every shard, as the suite does (the reporter
  // numbers a case by its place among all declared tests), and runs those of this shard: each on the
  // shard of the suite's case (the suite's split, not one of the compared cases alone), so a shard
  // compares the cases it ran under both, and `evals merge` joins the shards' comparisons.
  let all: EvalCase[] = [];
  let positions: number[] = [];
  defineEvalSuite<EvalCase>(
    variantSuite(suite, variant),
    suiteOptions(options, async () => {
      all = await cases();
      const unknown = (baseline.cases ?? []).filter((id) => !all.some((evalCase) => evalCase.id === id));
      if (unknown.length > 0)
        throw new Error(
          `describeCases "${suite}": baseline.cases names ${unknown.map((id) => JSON.stringify(id)).join(", ")}, not a case of the suite (its cases: ${all.map((evalCase) => evalCase.id).join(", ")})`,
        );
      positions = [...all.keys()].filter((index) => compared(all[index]!));
      return positions.map((index) => variantCase(all[index]!, variant));
    }),
    (evalCase) => ({ ...variantSettingsOf(options, evalCase, variant), suite }),
    {
      onOutcome: (outcome, index) => {
        outcomes[0]!.set(positions[index]!, outcome);
      },
      gate: false,
      metaSuite: variantSuite(suite, variant),
      shardsOf: (count) => {
        const shards = shardsOfSuite(suite, all, count);
        return positions.map((index) => shards[index]!);
      },
    },
  );
  afterAll(() => {
    // The cases both sides ran (the baseline's are compared ones), in the suite's order.
    const both = [...outcomes[0]!.keys()].filter((index) => outcomes[1]!.has(index)).sort((a, b) => a - b);
    const side = (v: Variant, list: Map<number, CaseOutcome>) => ({
      variant: v,
      outcomes: both.map((index) => list.get(index)!),
      positions: both,
    });
    reportComparison(
      suite,
      options,
      [side({ ...variant, mustPass: false }, outcomes[0]!), side(against, outcomes[1]!)],
      shard,
    );
  });
}

/** Compares the two sides' outcomes, prints the comparison and writes its files. */
function reportComparison(
  suite: string,
  options: DescribeCasesOptions,
  sides: [VariantOutcomes, VariantOutcomes],
  shard: Shard | undefined,
): void {
  if (sides[0].outcomes.length === 0 && sides[1].outcomes.length === 0) return;
  const result = compareVariantOutcomes(sides, { suite, ...(shard ? { shard } : {}) });
  const dir =
    options.variantsDir ?? variantReportsDir(suite, shard ? shardResultsDir("results", shard) : "results");
  const files = writeVariantReports(result, { dir });
  const show = (file: string) => relative(process.cwd(), file) || file;
  console.log(
    `\n${suite}: ${sides[0].variant.name} vs ${sides[1].variant.name}\n${formatVariantsReport(result, { files, show })}`,
  );
  options.onComparison?.(result, files);
}

function suiteOptions(
  options: DescribeCasesOptions,
  data: () => Promise<EvalCase[]>,
): DescribeEvalOptions<EvalCase> {
  const {
    cases: _cases,
    model: _model,
    cassette: _cassette,
    worktree: _worktree,
    scorers: _scorers,
    task: _task,
    variants: _variants,
    baseline: _baseline,
    variantsDir: _variantsDir,
    onComparison: _onComparison,
    ...rest
  } = options;
  return {
    ...rest,
    data,
    // Every case gets its task and scorers from caseSettingsOf.
    task: () => {
      throw new Error("describeCases: the case has no task");
    },
    scorers: [],
  };
}

/** The cases, each named (the test's name: the case's name, else its id). */
async function loadNamedCases(options: DescribeCasesOptions): Promise<EvalCase[]> {
  const { cases } = options;
  return loadCaseList(typeof cases === "function" ? await cases() : cases, {
    runners: suiteRegistry(options),
    ...(options.rules ? { rules: options.rules } : {}),
  }).map((evalCase) => (evalCase.name ? evalCase : { ...evalCase, name: evalCase.id }));
}
