// The cost of growth: how time and memory grow with the number of cases and trials replayed, with
// the length of a graded run, and with the number of cases in the reports. Every measurement runs in
// a fresh child process, so its peak memory (max RSS) is its own; the ratios that judge it are printed
// beside each number (per-case or per-line cost against the smallest size, and against a bare pass
// over the same input measured in the same run). No timings are asserted.
//
//   BENCH_GROWTH_CASES         cases replayed (default "1,10,100"), each its own copy of the find-todos
//                              example's recording, by the real claude CLI through runCases
//   BENCH_GROWTH_TRIALS        trials of one case (default "10")
//   BENCH_GROWTH_CONCURRENCY   trials at once (default 2: the machine's cores)
//   BENCH_GROWTH_LINES         stream-json lines of the graded runs (default "1000,100000,1000000")
//   BENCH_GROWTH_REPORT_CASES  cases in the reports (default "1,10,100,1000", 50 tool calls each)
//   BENCH_GROWTH_PARTS         which parts (default "replay,grade,reports")
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { envCount, envCounts } from "./bench-kit.mjs";
import { writeStream } from "./growth/stream-run.mjs";

const CASES = envCounts("BENCH_GROWTH_CASES", [1, 10, 100]);
const TRIALS = envCounts("BENCH_GROWTH_TRIALS", [10]);
const CONCURRENCY = envCount("BENCH_GROWTH_CONCURRENCY", 2);
const LINES = envCounts("BENCH_GROWTH_LINES", [1_000, 100_000, 1_000_000]);
const REPORT_CASES = envCounts("BENCH_GROWTH_REPORT_CASES", [1, 10, 100, 1_000]);
const PARTS = (process.env.BENCH_GROWTH_PARTS ?? "replay,grade,reports").split(",");

const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;
const size = (bytes) =>
  bytes >= 1e6
    ? `${(bytes / 1e6).toFixed(1)} MB`
    : bytes >= 1e3
      ? `${(bytes / 1e3).toFixed(1)} KB`
      : `${bytes} B`;
const secs = (ms) =>
  ms >= 10_000
    ? `${(ms / 1000).toFixed(0)} s`
    : ms >= 1000
      ? `${(ms / 1000).toFixed(1)} s`
      : `${ms.toFixed(0)} ms`;

/** Runs one measurement in a fresh node process; it prints one JSON line (with its max RSS). */
function measure(kind, ...args) {
  const child = spawnSync(
    process.execPath,
    [fileURLToPath(new URL("./growth/measure.mjs", import.meta.url)), kind, ...args.map(String)],
    {
      encoding: "utf8",
      env: { ...process.env, FORCE_COLOR: "0" },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const line = child.stdout.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line);
  } catch {
    return {
      failed: `${kind} ${args.join(" ")}: exit ${child.status}: ${child.stderr.trim().split("\n").slice(-3).join(" | ")}`,
    };
  }
}

function table(header, rows) {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) => `| ${cells.map((cell, i) => String(cell).padEnd(widths[i])).join(" | ")} |`;
  console.log(line(header));
  console.log(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
  for (const row of rows) console.log(line(row));
}

const work = mkdtempSync(join(tmpdir(), "evals-bench-growth-"));
try {
  if (PARTS.includes("replay")) {
    console.log(
      `\nCases and trials replayed (real claude CLI against a recording, ${CONCURRENCY} at once; each size once):`,
    );
    const rows = [];
    let base;
    const sizes = [...CASES.map((cases) => [cases, 1]), ...TRIALS.map((trials) => [1, trials])];
    for (const [cases, trials] of sizes) {
      const result = measure("replay", cases, trials, CONCURRENCY, join(work, `replay-${cases}x${trials}`));
      if (result.failed) {
        rows.push([`${cases} x ${trials}`, result.failed, "", "", ""]);
        continue;
      }
      const runs = cases * trials;
      const perRun = result.ms / runs;
      base ??= perRun;
      rows.push([
        `${cases} x ${trials}`,
        `${result.passed}/${cases} passed`,
        secs(result.ms),
        `${secs(perRun)} (${(perRun / base).toFixed(2)}x)`,
        mb(result.maxRssKb),
      ]);
    }
    table(["cases x trials", "verdict", "wall time", "per run (vs 1 run)", "max RSS (harness)"], rows);
  }

  if (PARTS.includes("grade")) {
    console.log(
      "\nRuns graded (`evals grade <stream.jsonl> --case`, every default rule), beside a bare pass (read + JSON.parse of each line):",
    );
    const rows = [];
    const notes = [];
    let base;
    for (const lines of LINES) {
      const file = join(work, `run-${lines}.jsonl`);
      await writeStream(file, lines);
      const bare = measure("parse", file);
      const graded = measure("grade", file);
      if (graded.failed || bare.failed) {
        rows.push([
          lines.toLocaleString("en"),
          size(statSync(file).size),
          graded.failed ?? bare.failed,
          "",
          "",
          "",
          "",
        ]);
        rmSync(file, { force: true });
        continue;
      }
      if (graded.stderr)
        notes.push(`${lines.toLocaleString("en")} lines: evals grade said: ${graded.stderr.trim()}`);
      const perLine = graded.ms / lines;
      base ??= perLine;
      rows.push([
        lines.toLocaleString("en"),
        size(statSync(file).size),
        `${secs(graded.ms)} (exit ${graded.exit})`,
        `${(perLine * 1000).toFixed(1)} µs (${(perLine / base).toFixed(2)}x)`,
        `${(graded.ms / bare.ms).toFixed(1)}x`,
        mb(graded.maxRssKb),
        mb(bare.maxRssKb),
      ]);
      rmSync(file, { force: true });
    }
    table(
      ["lines", "file", "grade", "per line (vs smallest)", "vs bare pass", "max RSS grade", "max RSS bare"],
      rows,
    );
    for (const note of notes) console.log(note);
  }

  if (PARTS.includes("reports")) {
    console.log("\nReports (50 tool calls per case, every run kept): sizes and render times:");
    const rows = [];
    for (const cases of REPORT_CASES) {
      const result = measure("reports", cases, 50);
      if (result.failed) {
        rows.push([cases, result.failed, "", "", "", ""]);
        continue;
      }
      rows.push([
        cases.toLocaleString("en"),
        `${size(result.htmlBytes)} (${secs(result.htmlMs)})`,
        `${size(result.jsonBytes)} (${secs(result.jsonMs)})`,
        `${size(result.junitBytes)} (${secs(result.junitMs)})`,
        `${(result.htmlBytes / result.jsonBytes).toFixed(2)}x`,
        mb(result.maxRssKb),
      ]);
    }
    table(["cases", "report.html", "latest.json", "junit.xml", "HTML / JSON", "max RSS"], rows);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
