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
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const list = (name, fallback) => (process.env[name] ?? fallback).split(",").filter(Boolean).map(Number);
const CASES = list("BENCH_GROWTH_CASES", "1,10,100");
const TRIALS = list("BENCH_GROWTH_TRIALS", "10");
const CONCURRENCY = Number(process.env.BENCH_GROWTH_CONCURRENCY ?? 2);
const LINES = list("BENCH_GROWTH_LINES", "1000,100000,1000000");
const REPORT_CASES = list("BENCH_GROWTH_REPORT_CASES", "1,10,100,1000");
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

/**
 * A Claude Code stream-json run of `lines` lines, shaped like the CLI's (system/init, assistant
 * tool_use lines and user tool_result lines in pairs, a result line): Reads, Edits of what was read,
 * Bash commands, some failing.
 */
async function writeStream(file, lines) {
  const out = createWriteStream(file);
  const write = (value) =>
    out.write(`${JSON.stringify(value)}\n`)
      ? undefined
      : new Promise((resolve) => out.once("drain", resolve));
  const session = "6f1c1d2e-bench-growth";
  const time = (i) => new Date(Date.parse("2026-11-21T10:00:00Z") + i * 50).toISOString();
  await write({
    type: "system",
    subtype: "init",
    cwd: "/home/dev/project",
    session_id: session,
    model: "claude-sonnet-4-5",
    tools: ["Bash", "Read", "Edit", "Grep"],
    claude_code_version: "2.1.330",
  });
  const pairs = Math.max(0, Math.floor((lines - 2) / 2));
  for (let i = 0; i < pairs; i++) {
    const id = `toolu_${i.toString(36)}`;
    const kind = i % 4;
    // Edits change the file the call before read (reads, then an edit of what was read, then a test).
    const file = `/home/dev/project/src/module-${(kind === 2 ? i - 1 : i) % 500}.ts`;
    const call =
      kind === 0 || kind === 1
        ? { name: "Read", input: { file_path: file } }
        : kind === 2
          ? { name: "Edit", input: { file_path: file, old_string: `a${i}`, new_string: `b${i}` } }
          : {
              name: "Bash",
              input: { command: `npm test -- --grep case-${i}`, description: "run the tests" },
            };
    await write({
      type: "assistant",
      message: {
        id: `msg_${i.toString(36)}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "tool_use", id, ...call }],
        usage: { input_tokens: 100, output_tokens: 10 },
      },
      parent_tool_use_id: null,
      session_id: session,
      timestamp: time(2 * i),
    });
    const failed = kind === 3 && i % 20 === 3;
    await write({
      type: "user",
      message: {
        role: "user",
        content: [
          {
            tool_use_id: id,
            type: "tool_result",
            content: failed ? "Error: 1 test failed" : `1\texport const value${i} = ${i};\n2\t`,
            is_error: failed,
          },
        ],
      },
      parent_tool_use_id: null,
      session_id: session,
      timestamp: time(2 * i + 1),
    });
  }
  await write({
    type: "result",
    subtype: "success",
    is_error: false,
    num_turns: pairs,
    duration_ms: pairs * 100,
    total_cost_usd: 1.5,
    session_id: session,
    result: "Done.",
    usage: { input_tokens: pairs * 100, output_tokens: pairs * 10 },
  });
  await new Promise((resolve) => out.end(resolve));
}
