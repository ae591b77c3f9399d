import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeAvailable, claudeCodeRunner } from "@evals/claude-code";
import { loadVariants, runCases } from "@evals/harness";
import { ResultsComparisonSchema, ResultsFileSchema } from "@evals/logging";
import { notesVariantsDir } from "@evals/test-kit/notes-variants";
import { canRefuseNetwork, networkRefused } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { evalsCommand, runInProcess } from "./command-io.js";
import { comparableHtml, comparableJson } from "./comparable-reports.js";

/**
 * With/without comparisons on a real suite: the real claude CLI, its model a scripted loopback
 * model that follows a house rule only when its system prompt has one. `evals record --variants`
 * records each variant once; `evals run --variants` (the built binary, in a network namespace with
 * only loopback where the machine allows it) and runCases({ variants }) replay them.
 */

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const cliJs = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const haveClaude = claudeAvailable({ claudeBin }).available;
const canIsolate = canRefuseNetwork();

const scratch = mkdtempSync(join(tmpdir(), "harness-variants-claude-"));
const suite = join(scratch, "suite");
const cassettes = join(suite, "cassettes");
const out = join(scratch, "results");
const previousBin = process.env.EVALS_CLAUDE_BIN;
beforeAll(() => {
  cpSync(notesVariantsDir, suite, { recursive: true });
  process.env.EVALS_CLAUDE_BIN = claudeBin;
  process.env.EVALS_OUTPUT_DIR ??= scratch;
});
afterAll(() => {
  if (previousBin === undefined) delete process.env.EVALS_CLAUDE_BIN;
  else process.env.EVALS_CLAUDE_BIN = previousBin;
  rmSync(scratch, { recursive: true, force: true });
});

/** `evals run|record <args>` in this process. */
const evals = (args: string[], options: { record?: boolean } = {}) =>
  runInProcess(evalsCommand(options.record ? "record" : "run"), args);

/** The built `evals` binary, with the network refused (only loopback) where unshare allows it. */
function evalsBinary(args: string[]) {
  const command = [process.execPath, cliJs, ...args];
  const [bin, ...rest] = canIsolate ? networkRefused(command) : command;
  const result = spawnSync(bin!, rest, {
    cwd: suite,
    encoding: "utf8",
    timeout: 300_000,
    env: {
      ...process.env,
      EVALS_CLAUDE_BIN: claudeBin,
      EVALS_OUTPUT_DIR: scratch,
      CI: "1",
      FORCE_COLOR: "0",
    },
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** `evals run --variants`, replaying the recordings strictly with three trials, into `outDir`. */
const replayThreeTrials = (outDir: string, extra: string[] = []) =>
  evalsBinary([
    ...["run", "notes.yaml", "--variants", "variants.yaml", "--cassettes", "cassettes"],
    ...["--mode", "strict", "--trials", "3", "--out", outDir, ...extra],
  ]);

describe.skipIf(!haveClaude)("evals run --variants, on the real CLI", () => {
  it("records each variant once, into a recording named by the case and the variant", async () => {
    const recorded = await evals(
      [
        join(suite, "notes.yaml"),
        "--variants",
        join(suite, "variants.yaml"),
        "--model",
        join(notesVariantsDir, "models.mjs"),
        "--cassettes",
        cassettes,
        "--out",
        out,
      ],
      { record: true },
    );
    expect(recorded.err).toBe("");
    // The baseline (mustPass: false) fails its case and does not fail the command.
    expect(recorded.code, recorded.out).toBe(EXIT.passed);
    const files = readdirSync(cassettes).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^lists-the-notes\.house-rule\.[0-9a-f]{8}\.recording\.json$/);
    expect(files[1]).toMatch(/^lists-the-notes\.plain\.[0-9a-f]{8}\.recording\.json$/);
  }, 300_000);

  it("replays both variants offline with one trial: the table, and a difference within noise", () => {
    const run = evalsBinary([
      "run",
      "notes.yaml",
      "--variants",
      "variants.yaml",
      "--cassettes",
      "cassettes",
      "--mode",
      "strict",
      "--out",
      out,
    ]);
    expect(run.err).toBe("");
    expect(run.code, run.out).toBe(EXIT.passed);
    expect(run.out).toContain("plain (baseline, not gated):");
    expect(run.out).toMatch(/case\s+plain\s+house-rule\s+house-rule − plain\s+verdict\s+Δturns/);
    expect(run.out).toMatch(/Which notes are there\?|lists-the-notes/);
    expect(run.out).toMatch(
      /overall \(1 case\)\s+0\/1 0% \[0–79\]\s+1\/1 100% \[21–100\]\s+\+100% \[−12…\+100\]\s+within noise/,
    );
    expect(run.out).toContain(
      "house-rule − plain overall: +100% [−12…+100] over 1 case(s) (1 trial(s) of plain, 1 of house-rule): within noise: these trials cannot tell house-rule from plain apart",
    );
    expect(run.out).toContain("Not gated (mustPass: false): plain.");
  }, 300_000);

  it("replays three trials per variant offline: house-rule is better, the files are written", () => {
    const run = replayThreeTrials(out);
    expect(run.err).toBe("");
    expect(run.code, run.out).toBe(EXIT.passed);
    expect(run.out).toMatch(/0\/3 0% \[0–56\]\s+3\/3 100% \[44–100\]\s+\+100% \[\+21…\+100\]\s+better/);
    expect(run.out).toContain("house-rule passes more often than plain (the 95% interval excludes 0).");
    const dir = join(out, "variants", "notes");
    expect(run.out).toContain(
      "Comparison: ../results/variants/notes/comparison.json (page: ../results/variants/notes/comparison.html)",
    );
    const comparison = ResultsComparisonSchema.parse(
      JSON.parse(readFileSync(join(dir, "comparison.json"), "utf8")),
    );
    expect(comparison).toMatchObject({ a: { label: "plain" }, b: { label: "house-rule" } });
    expect(comparison.overall.a).toMatchObject({ passed: 0, trials: 3 });
    expect(comparison.overall.b).toMatchObject({ passed: 3, trials: 3 });
    // The runs are in the variants' results files, so turns, tool calls and tokens are compared.
    expect(comparison.overall.deltas.tool_calls).toBe(1);
    expect(comparison.overall.deltas.turns).toBeGreaterThan(0);
    expect(comparison.overall.deltas.tokens).toBeDefined();
    expect(readFileSync(join(dir, "comparison.html"), "utf8")).toContain("house-rule");
    // The run's own report holds both variants' cases and the comparison under its summary.
    const report = readFileSync(join(out, "report.html"), "utf8");
    expect(report).toContain('<section class="comparison" id="comparison">');
    expect(report).toContain("Comparison: house-rule against plain");
    const latest = ResultsFileSchema.parse(JSON.parse(readFileSync(join(out, "latest.json"), "utf8")));
    expect(latest.cases.map((c) => c.suite)).toEqual(["notes › plain", "notes › house-rule"]);
    for (const variant of ["plain", "house-rule"]) {
      const results = ResultsFileSchema.parse(JSON.parse(readFileSync(join(dir, `${variant}.json`), "utf8")));
      // Same case, same suite on both sides; each variant its own run ids and run folders.
      expect(results.cases.map((c) => [c.suite, c.id])).toEqual([["notes", "lists-the-notes"]]);
      const trials = results.cases[0]!.trials;
      expect(trials).toHaveLength(3);
      for (const trial of trials) {
        expect(trial.run_id).toContain(`-lists-the-notes-${variant}-t${trial.trial + 1}-`);
        expect(trial.origin).toBe("replay");
        expect(existsSync(trial.output_dir!)).toBe(true);
      }
    }
  }, 300_000);

  it("split in three shards (evals run --shard i/3) and joined by evals merge, gives the three-trial run's comparison and report", () => {
    const sharded = join(scratch, "sharded");
    for (const index of [1, 2, 3]) {
      const shard = replayThreeTrials(sharded, ["--shard", `${index}/3`]);
      expect(shard.err).toBe("");
      expect(shard.code, shard.out).toBe(EXIT.passed);
      // Each shard's comparison is next to its results, not in the folder the others share.
      expect(existsSync(join(sharded, `shard-${index}-of-3`, "variants", "notes", "comparison.json"))).toBe(
        true,
      );
    }
    expect(existsSync(join(sharded, "variants"))).toBe(false);
    const merged = join(scratch, "merged");
    const merge = evalsBinary([
      "merge",
      ...[1, 2, 3].map((index) => join(sharded, `shard-${index}-of-3`)),
      "--out",
      merged,
    ]);
    expect(merge.err).toBe("");
    // As the one-machine run and each shard: the baseline's failing case (mustPass: false, as its
    // variant results say) fails no run.
    expect(merge.code, merge.out).toBe(EXIT.passed);
    expect(merge.out).toContain("3 shard(s), 2 case(s), 6 trial(s): 1 passed, 1 failed");
    expect(merge.out).toContain("Comparisons: ");
    const read = (path: string) => readFileSync(path, "utf8");
    for (const file of ["comparison.json", "plain.json", "house-rule.json"]) {
      expect(comparableJson(read(join(merged, "variants", "notes", file))), file).toEqual(
        comparableJson(read(join(out, "variants", "notes", file))),
      );
    }
    expect(comparableJson(read(join(merged, "latest.json")))).toEqual(
      comparableJson(read(join(out, "latest.json"))),
    );
    expect(comparableHtml(read(join(merged, "report.html")))).toEqual(
      comparableHtml(read(join(out, "report.html"))),
    );
  }, 600_000);

  it("runCases({ variants }) replays the same recordings and returns the comparison", async () => {
    const variants = loadVariants(join(suite, "variants.yaml"));
    const result = await runCases(join(suite, "notes.yaml"), {
      agent: claudeCodeRunner,
      variants,
      cassette: { dir: cassettes, mode: "strict" },
      trials: 2,
      concurrency: 2,
    });
    expect(result.passed).toBe(true);
    expect(result.outcomes).toHaveLength(2);
    const compared = result.variants!;
    expect(compared.runs.map((run) => [run.variant.name, run.passed])).toEqual([
      ["plain", false],
      ["house-rule", true],
    ]);
    expect(compared.comparison.cases[0]).toMatchObject({
      id: "lists-the-notes",
      a: { passed: 0, trials: 2 },
      b: { passed: 2, trials: 2 },
    });
    // The variant that is not gated still says why it failed.
    expect(compared.runs[0].outcomes[0]!.message).toContain("Bash");
  }, 300_000);

  it("a variant's runAgent options win over the case's (and another variant gets its own recording)", async () => {
    const result = await runCases(join(suite, "notes.yaml"), {
      agent: claudeCodeRunner,
      variants: [
        { name: "plain", mustPass: false },
        {
          name: "rule-in-code",
          runAgent: {
            options: { appendSystemPrompt: "House rule: look at the files with Bash before you answer." },
          },
        },
      ],
      cassette: { dir: cassettes, mode: "strict" },
    });
    // No recording of the new variant: it says which file is missing, named by the variant.
    expect(result.variants!.runs[1].outcomes[0]!.message).toMatch(
      /lists-the-notes\.rule-in-code\.[0-9a-f]{8}/,
    );
  }, 300_000);
});
