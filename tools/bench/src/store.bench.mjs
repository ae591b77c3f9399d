// @evals/store: recording a 1,000-case run in the results database beside writing its latest.json
// (the baseline, measured in the same run), and `evals history` over 100 runs x 1,000 cases, on the
// embedded database (PGlite). Opening the embedded database (loading PostgreSQL's WebAssembly) is
// printed apart: a run pays it once, whatever its size.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAIN_AGENT, RunBuilder } from "@evals/core";
import { buildResults, caseResult, writeJsonResults } from "@evals/logging";
import { caseHistory, formatHistory, recordRun, refreshHistoryDigest, Store } from "@evals/store";
import { envCount, WORKSPACE } from "./bench-kit.mjs";

const CASES = envCount("BENCH_STORE_CASES", 1000);
const CALLS = envCount("BENCH_STORE_CALLS", 10);
const RUNS = envCount("BENCH_STORE_RUNS", 100);
const TOOLS = ["Read", "Grep", "Bash", "Edit", "Glob"];

/** Wall time, and this process's CPU time (steadier on a busy machine), in ms. */
async function time(fn) {
  const start = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  const value = await fn();
  const cpu = process.cpuUsage(cpuStart);
  return { value, ms: Number(process.hrtime.bigint() - start) / 1e6, cpu: (cpu.user + cpu.system) / 1000 };
}

/** A trial's run: `calls` tool calls with their results, and the final result with its usage. */
function makeRun(n, calls) {
  const builder = new RunBuilder(["synthetic"]);
  builder.meta.model = "claude-sonnet-4-5";
  builder.meta.claude_version = "2.1.330";
  builder.push({ type: "user_message", agent: MAIN_AGENT, text: `Case ${n}` });
  for (let i = 0; i < calls; i++) {
    const id = `toolu_${n}_${i}`;
    builder.push({
      type: "tool_call",
      agent: MAIN_AGENT,
      id,
      name: TOOLS[i % 5],
      input: { file_path: `src/m${i}.ts` },
    });
    builder.push({ type: "tool_result", agent: MAIN_AGENT, id, output: `result ${i}`, is_error: false });
  }
  builder.push({
    type: "final_result",
    agent: MAIN_AGENT,
    subtype: "success",
    is_error: false,
    num_turns: calls,
    usage: { input_tokens: 1000 + n, output_tokens: 100 },
  });
  return builder.build();
}

/** A run of CASES cases (one in ten failing, varying with `run`), finishing `run` minutes in. */
function makeResults(run, withRuns) {
  const cases = Array.from({ length: CASES }, (_, n) => {
    const failing = (n + run) % 10 === 3;
    return caseResult({
      id: `case-${n}`,
      name: `case ${n}`,
      suite: `suite ${n % 5}`,
      tags: [`area-${n % 7}`],
      trials: [
        {
          status: failing ? "failed" : "passed",
          scores: [{ scorer: "trajectory", score: failing ? 0.5 : 1, passed: !failing, threshold: 0.8 }],
          violations: failing
            ? [
                {
                  rule: "read-before-write",
                  type: "edit-without-read",
                  severity: "error",
                  message: "Edit without Read",
                },
              ]
            : [],
          duration_ms: 1000 + n,
          origin: "replay",
          ...(withRuns ? { run: makeRun(n, CALLS) } : {}),
        },
      ],
    });
  });
  const finishedAt = new Date(Date.parse("2026-11-01T00:00:00Z") + run * 60_000);
  return buildResults(cases, {
    suite: "bench",
    env: {},
    finishedAt,
    startedAt: new Date(finishedAt.getTime() - 60_000),
    meta: { git_commit: "0".repeat(40) },
  });
}

/** `evals history`'s work in a fresh process, phase by phase (wall and CPU ms), as JSON. */
const HISTORY_PHASES = `
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const marks = [["node start", 0, 0], ["", performance.now(), cpu()]];
const mark = (name) => marks.push([name, performance.now(), cpu()]);
const { caseHistory, formatHistory, Store } = await import("@evals/store");
mark("import @evals/store");
const store = await Store.open({ kind: "embedded", dir: process.argv[1] });
mark("open (PGlite, migrations)");
const cases = await caseHistory(store, { last: 20 });
mark("query (cold)");
formatHistory(cases);
mark("format the table");
await store.close();
mark("close");
const out = { "node start": { wall: marks[1][1], cpu: marks[1][2] } };
for (let i = 2; i < marks.length; i++)
  out[marks[i][0]] = { wall: marks[i][1] - marks[i - 1][1], cpu: marks[i][2] - marks[i - 1][2] };
out.total = { wall: marks.at(-1)[1], cpu: marks.at(-1)[2] };
process.stdout.write(JSON.stringify(out));
`;

/** `node --import` it: the process prints its CPU time (every thread's, ms) to stderr as it exits. */
const CPU_AT_EXIT = `data:text/javascript,${encodeURIComponent(
  'process.on("exit", () => { const u = process.cpuUsage(); process.stderr.write("evals-cpu-ms " + (u.user + u.system) / 1000 + "\\n"); });',
)}`;

const root = mkdtempSync(join(tmpdir(), "bench-store-"));
const db = join(root, "db");
try {
  // ---- recording one run --------------------------------------------------------------------------
  const created = await time(async () => (await Store.open({ kind: "embedded", dir: db })).close());
  // The history digest there (as after a first evals history): each run recorded appends its lines.
  const first = await Store.open({ kind: "embedded", dir: db });
  await refreshHistoryDigest(first);
  await first.close();
  const json = [];
  const recorded = [];
  const written = [];
  for (let round = 0; round < 3; round++) {
    const results = makeResults(round, true);
    globalThis.gc?.();
    json.push(
      await time(() => writeJsonResults(results, { dir: join(root, "results"), includeRuns: "all" })),
    );
    globalThis.gc?.();
    recorded.push(await time(() => recordRun(results, { source: "run", db })));
  }
  const open = await time(() => Store.open({ kind: "embedded", dir: db }));
  for (let round = 3; round < 6; round++) {
    const results = makeResults(round, true);
    globalThis.gc?.();
    written.push(await time(() => open.value.record(results, "run")));
  }
  await open.value.close();
  const best = (list, key = "ms") => Math.min(...list.map((t) => t[key]));
  const both = (list) => `${best(list).toFixed(0)} / ${best(list, "cpu").toFixed(0)}`;
  console.log(
    `Recording a ${CASES.toLocaleString("en")}-case run (${CALLS} tool calls a trial), embedded (wall / CPU ms):`,
  );
  console.log(`  creating the database (first run on a machine): ${created.ms.toFixed(0)} ms`);
  console.log(`  opening it (every run): ${open.ms.toFixed(0)} / ${open.cpu.toFixed(0)}`);
  console.log(`  recordRun, open + write + close: ${both(recorded)}`);
  console.log(`  the write alone (one transaction, the database open): ${both(written)}`);
  console.log(`  baseline writeJsonResults (latest.json + history, every run kept): ${both(json)}`);
  for (const key of ["ms", "cpu"])
    console.log(
      `  ratios (${key === "ms" ? "wall" : "CPU"}): write ${(best(written, key) / best(json, key)).toFixed(2)}x the baseline, with open and close ${(best(recorded, key) / best(json, key)).toFixed(2)}x (goal: under 1.2x)`,
    );

  // ---- history over RUNS runs ----------------------------------------------------------------------
  const fill = await time(async () => {
    const store = await Store.open({ kind: "embedded", dir: db });
    try {
      for (let run = 6; run < RUNS; run++) await store.record(makeResults(run, false), "run");
    } finally {
      await store.close();
    }
  });
  const store = await Store.open({ kind: "embedded", dir: db });
  const queries = [];
  let shown = "";
  for (let round = 0; round < 3; round++) {
    queries.push(
      await time(async () => {
        shown = formatHistory(await caseHistory(store, { last: 20 }));
      }),
    );
  }
  await store.close();
  const lines = shown.trimEnd().split("\n").length - 1;
  console.log(`\nevals history over ${RUNS} runs x ${CASES.toLocaleString("en")} cases (embedded):`);
  console.log(`  (filling the other ${RUNS - 6} runs took ${(fill.ms / 1000).toFixed(1)} s)`);
  console.log(
    `  query + table of ${lines} cases, last 20 runs each, the database open and warm: ${both(queries)} (goal: under 300 ms)`,
  );

  // ---- `evals history` as a command: a fresh process, where its time goes ------------------------
  const phases = [];
  const commands = [];
  const fromDb = [];
  const digest = `${db}.history.jsonl`;
  if (!existsSync(digest)) throw new Error("the runs recorded did not keep the history digest");
  const evalsHistory = (list) => {
    const started = performance.now();
    const cli = spawnSync(
      process.execPath,
      ["--import", CPU_AT_EXIT, join(WORKSPACE, "packages/cli/dist/cli.js"), "history", "--db", db],
      { encoding: "utf8" },
    );
    if (cli.status !== 0) throw new Error(cli.stderr);
    list.push({ ms: performance.now() - started, cpu: Number(/evals-cpu-ms (\S+)/.exec(cli.stderr)?.[1]) });
    return cli.stdout;
  };
  for (let round = 0; round < 3; round++) {
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", HISTORY_PHASES, db], {
      cwd: join(WORKSPACE, "tools/bench"),
      encoding: "utf8",
    });
    if (child.status !== 0) throw new Error(child.stderr);
    phases.push(JSON.parse(child.stdout));
    const fromDigest = evalsHistory(commands);
    // Without the digest: the database answers, and the command writes the digest again.
    rmSync(digest);
    if (evalsHistory(fromDb) !== fromDigest)
      throw new Error("evals history: the digest and the database differ");
  }
  const fastest = phases.reduce((a, b) => (a.total.wall <= b.total.wall ? a : b));
  console.log(`\nevals history as a command (a fresh process), wall / CPU ms of its best of 3:`);
  for (const [phase, { wall, cpu }] of Object.entries(fastest))
    console.log(`  ${phase.padEnd(30)} ${wall.toFixed(0).padStart(5)} / ${cpu.toFixed(0)}`);
  console.log(
    `  the evals binary without the history digest (the database answers, the digest is written): ${both(fromDb)}`,
  );
  console.log(
    `  the evals binary from the history digest, end to end: ${both(commands)} (the whole command under 300 ms: ${best(commands) < 300 ? "met" : "not met"})`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
