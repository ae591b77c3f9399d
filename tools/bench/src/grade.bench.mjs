// `evals grade` of a long run against the JSONL reader's validated read of the same file, side by side
// in one run, each in a fresh process (its max RSS its own). Goals (issue #31): peak RSS <= 300 MB,
// time <= 1.5x the validated read. The run is graded against two cases with every default rule: one it
// breaks on every fourth call (150,000 violations, all kept for the verdict and written in the --json
// report) and one it mostly passes (the user approved in advance). The machine's load is printed beside
// them, and each process's CPU time (steadier than wall time on a shared machine). No timings are
// asserted. Each case is graded three times, each while it is read: the bare stream.jsonl, a run
// folder holding only that file, and a harness run folder (result.json holding the whole run,
// pretty-printed, as runAgent writes it, beside the stream and the manifest), the common one.
// Every grade is measured beside a validated read of its own, just before it, and a row's ratio is
// the median of those pairs' ratios over the rounds: one read's swing (a shared machine's read of the
// same file took 5.8 s in one run and 9.5 s in another) no longer moves every row.
//
//   BENCH_GRADE_LINES    stream-json lines of the graded run (default 1000000)
//   BENCH_GRADE_ROUNDS   rounds, each grading every row once beside its own read (default 3)
import { spawnSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { envCount, median } from "./bench-kit.mjs";
import { writeStream } from "./growth/stream-run.mjs";

const LINES = envCount("BENCH_GRADE_LINES", 1_000_000);
const ROUNDS = envCount("BENCH_GRADE_ROUNDS", 3, 1);
const GOAL_RSS_MB = 300;
const GOAL_TIME_RATIO = 1.5;

/** One measurement of growth/measure.mjs in a node process of its own: its JSON line. */
function measure(kind, ...args) {
  const child = spawnSync(
    process.execPath,
    [fileURLToPath(new URL("./growth/measure.mjs", import.meta.url)), kind, ...args],
    { encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" }, maxBuffer: 64 * 1024 * 1024 },
  );
  try {
    return JSON.parse(child.stdout.trim().split("\n").pop() ?? "");
  } catch {
    throw new Error(
      `${kind}: exit ${child.status}: ${child.stderr.trim().split("\n").slice(-3).join(" | ")}`,
    );
  }
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");
const work = mkdtempSync(join(tmpdir(), "evals-bench-grade-"));
try {
  const file = join(work, "stream.jsonl");
  await writeStream(file, LINES);
  // The same file as a run folder's (a hard link: no second copy on disk).
  const folder = join(work, "run-folder");
  mkdirSync(folder);
  linkSync(file, join(folder, "stream.jsonl"));
  // One harness run folder a case: the stored run holds the prompt the harness ran it with.
  const prompts = {
    "breaks-rules": "Refactor the modules and run the tests.",
    "mostly-passes": "Refactor the modules and run the tests, go ahead without asking.",
  };
  const harnessFolders = {};
  let written;
  for (const [kind, prompt] of Object.entries(prompts)) {
    harnessFolders[kind] = join(work, `harness-run-folder-${kind}`);
    mkdirSync(harnessFolders[kind]);
    linkSync(file, join(harnessFolders[kind], "stream.jsonl"));
    written = measure("harness-folder", file, harnessFolders[kind], prompt);
  }
  const bytes = statSync(file).size;
  console.log(
    `${LINES.toLocaleString("en")}-line stream.jsonl (${(bytes / 1e6).toFixed(0)} MB), its harness run folder's result.json (${(statSync(join(harnessFolders["breaks-rules"], "result.json")).size / 1e6).toFixed(0)} MB, ${written.events.toLocaleString("en")} events, written in ${(written.ms / 1000).toFixed(0)} s); load average before: ${load()}`,
  );
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const targets = [];
  for (const [kind, label] of [
    ["breaks-rules", "a case it breaks on every 4th call"],
    ["mostly-passes", "a case it mostly passes"],
  ]) {
    for (const [target, what] of [
      [file, "stream.jsonl"],
      [folder, "run folder"],
      [harnessFolders[kind], "harness run folder"],
    ])
      targets.push({ target, kind, label: `evals grade <${what}>, ${label}`, pairs: [] });
  }
  const reads = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const row of targets) {
      const read = measure("validated-read", file);
      const graded = measure("grade", row.target, row.kind);
      if (graded.exit > 1) console.log(`evals grade said (exit ${graded.exit}): ${graded.stderr?.trim()}`);
      reads.push(read);
      row.pairs.push({ read, graded });
    }
  }
  const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;
  const rows = [
    ["", "wall time", "CPU time (process)", "max RSS", "--json report"],
    [
      `JSONL reader, validated (median of ${reads.length} reads)`,
      seconds(median(reads.map((read) => read.ms))),
      seconds(median(reads.map((read) => read.cpuMs))),
      mb(Math.max(...reads.map((read) => read.maxRssKb))),
      "",
    ],
  ];
  for (const row of targets) {
    const graded = row.pairs.map((pair) => pair.graded);
    const exits = [...new Set(graded.map((g) => g.exit))].join(", ");
    // Peak memory is the largest of the rounds; times and ratios are medians.
    const rssMb = Math.max(...graded.map((g) => g.maxRssKb)) / 1024;
    const ratio = median(row.pairs.map((pair) => pair.graded.ms / pair.read.ms));
    const cpuRatio = median(row.pairs.map((pair) => pair.graded.cpuMs / pair.read.cpuMs));
    const spread = row.pairs.map((pair) => (pair.graded.ms / pair.read.ms).toFixed(2)).join(", ");
    rows.push(
      [
        `${row.label} (exit ${exits})`,
        seconds(median(graded.map((g) => g.ms))),
        seconds(median(graded.map((g) => g.cpuMs))),
        `${rssMb.toFixed(0)} MB`,
        `${(graded[0].reportBytes / 1e6).toFixed(0)} MB`,
      ],
      [
        `  grade / read beside it, median (rounds: ${spread})`,
        `${ratio.toFixed(2)}x (<= ${GOAL_TIME_RATIO}x: ${ratio <= GOAL_TIME_RATIO ? "met" : "NOT met"})`,
        `${cpuRatio.toFixed(2)}x (${cpuRatio <= GOAL_TIME_RATIO ? "met" : "NOT met"})`,
        `${rssMb.toFixed(0)} MB (<= ${GOAL_RSS_MB} MB: ${rssMb <= GOAL_RSS_MB ? "met" : "NOT met"})`,
        "",
      ],
    );
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows) console.log(`| ${row.map((cell, i) => cell.padEnd(widths[i])).join(" | ")} |`);
  console.log(`load average after: ${load()}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
