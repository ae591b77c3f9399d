// The first `npm run eval` of a fresh clone: every eval suite replayed through the real agent CLIs,
// with nothing in the Nx cache for it (NX_SKIP_NX_CACHE=true: what a new clone, or CI without a
// cache, pays). Goal: at most 60 s wall on the 2-core development machine, its CPU time printed
// beside it, and the same figure on a busy machine (load >= 8) printed too.
//
// Each run is a fresh clone of HEAD (committed work only) with the workspace's node_modules as hard
// links (`cp -al`, minus the caches tools write into), so nothing is installed and no other checkout
// is touched; no .nx folder (Nx computes its project graph without a daemon) and no .evals/db (the
// results database is created). The shared Nx cache in the home folder is never cleared: it is only
// skipped. BENCH_FIRST_RUN_ROUNDS (default 1) runs it more than once.
//
// Each run prints its wall time, its CPU time (the whole process tree's, steadier than wall time on a
// shared machine), the machine's load during it, and where the CPU went by kind of process (Nx, npm,
// tsup, vitest, each agent CLI; sampled from /proc, with each kind's run-queue wait: the time its
// processes were ready to run but had no core). The goal is judged on a run whose mean load stayed
// under 8; a run at load >= 8 is the busy figure. BENCH_FIRST_RUN_BUSY=<n> adds a round with n
// processes spinning on the CPU beside it, so the busy figure is measured even on an idle machine.
// BENCH_FIRST_RUN_BASE=<commit> also runs that commit, interleaved, for a before/after ratio (e.g.
// f9932bf, before the first-run work: eval waited for builds with .d.ts, one eval file at a time).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { childCpuMs, envCount, median } from "./bench-kit.mjs";
import { sampleTreeCpu } from "./process-tree-cpu.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const base = process.env.BENCH_FIRST_RUN_BASE;
const rounds = envCount("BENCH_FIRST_RUN_ROUNDS", 1);
const busySpinners = envCount("BENCH_FIRST_RUN_BUSY", 0, 0);
const TARGET_MS = 60_000;
/** The load from which a run is the busy figure, not judged by the goal. */
const BUSY_LOAD = 8;

const git = (cwd, ...args) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
const head = git(root, "rev-parse", "HEAD");
const baseCommit = base ? git(root, "rev-parse", `${base}^{commit}`) : undefined;
const dirty = git(root, "status", "--porcelain").length > 0;

/** A fresh clone at `commit`, with the workspace's node_modules hard-linked in. */
function freshClone(name, commit) {
  const dir = mkdtempSync(join(tmpdir(), `evals-bench-first-run-${name}-`));
  execFileSync("git", ["clone", "-q", "--no-checkout", root, dir]);
  git(dir, "checkout", "-q", "--detach", commit);
  execFileSync("cp", ["-al", join(root, "node_modules"), join(dir, "node_modules")]);
  // Caches that tools write in place: a hard link would let this clone write into the workspace's.
  for (const cache of [".vite", ".cache", ".vitest"]) {
    rmSync(join(dir, "node_modules", cache), { recursive: true, force: true });
  }
  return dir;
}

/** `npm run eval` in `dir` with the Nx cache skipped: wall and CPU time, and its output. */
function firstRun(dir) {
  return new Promise((resolve) => {
    const cpuBefore = childCpuMs();
    const started = performance.now();
    const child = spawn("npm", ["run", "eval"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        // Not the Nx task variables of `npm run bench` itself: the clone is a workspace of its own.
        ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("NX_"))),
        NX_SKIP_NX_CACHE: "true",
        NX_DAEMON: "false",
        NX_TUI: "false",
        NX_NO_CLOUD: "true",
        FORCE_COLOR: "0",
      },
    });
    const cpuByKind = sampleTreeCpu(child.pid);
    const loads = [];
    const loadTimer = setInterval(() => loads.push(loadavg()[0]), 1000);
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", (code) => {
      const wallMs = performance.now() - started;
      const cpuAfter = childCpuMs();
      clearInterval(loadTimer);
      resolve({
        code,
        wallMs,
        cpuMs: cpuBefore === undefined ? undefined : cpuAfter - cpuBefore,
        load: loads.length > 0 ? loads.reduce((sum, load) => sum + load, 0) / loads.length : loadavg()[0],
        kinds: cpuByKind.stop(),
        output,
        tests: countTests(dir),
      });
    });
  });
}

/** Tests (replayed cases and checks) the eval suites ran, from their vitest reports. */
function countTests(dir) {
  let total = 0;
  for (const group of ["packages", "plugins", "examples"]) {
    const groupDir = join(dir, group);
    if (!existsSync(groupDir)) continue;
    for (const name of execFileSync("ls", [groupDir], { encoding: "utf8" }).split("\n").filter(Boolean)) {
      const report = join(groupDir, name, "test-results", "eval", "vitest.json");
      if (existsSync(report)) total += JSON.parse(readFileSync(report, "utf8")).numTotalTests ?? 0;
    }
  }
  return total;
}

/** The Nx output cut into its tasks ("> nx run project:target" starts each one). */
function tasksOf(output) {
  const tasks = [];
  for (const line of output.split("\n")) {
    const start = line.match(/^> nx run (\S+):(\S+)/);
    if (start) tasks.push({ project: start[1], target: start[2], lines: [] });
    else tasks.at(-1)?.lines.push(line);
  }
  return tasks;
}

const seconds = (text) => Number.parseFloat(text) * (text.endsWith("ms") ? 1 : 1000);

/** Where a first run's time went, from tsup's and vitest's own reports in the output. */
function breakdown(output) {
  const builds = { js: 0, dts: 0, tasks: 0 };
  const evals = [];
  for (const task of tasksOf(output)) {
    const text = task.lines.join("\n");
    if (task.target.startsWith("build")) {
      builds.tasks++;
      const js = [...text.matchAll(/^(?:ESM|CJS) .*Build success in (\d+)ms/gm)].map((m) => Number(m[1]));
      const dts = [...text.matchAll(/^DTS .*Build success in (\d+)ms/gm)].map((m) => Number(m[1]));
      builds.js += js.length > 0 ? Math.max(...js) : 0;
      builds.dts += dts.reduce((sum, value) => sum + value, 0);
    }
    if (task.target === "eval") {
      for (const m of text.matchAll(
        /Duration\s+(\S+) \(transform (\S+), setup \S+, import (\S+), tests (\S+),/g,
      )) {
        evals.push({
          project: task.project,
          duration: seconds(m[1]),
          start: seconds(m[2]) + seconds(m[3]),
          tests: seconds(m[4]),
        });
      }
    }
  }
  return { builds, evals };
}

const s = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Processes that only spin on the CPU, `count` of them, for the busy round; `stop()` ends them. */
function spinners(count) {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
  );
  return {
    stop() {
      for (const child of children) child.kill("SIGKILL");
    },
  };
}

/**
 * How fast the host is now: the CPU time of `gemini --version` (a piece of every first run: Node
 * compiling the gemini CLI's 20 MB bundle), median of three. The first run's figures move with it
 * (the same commit took 52-54 s wall on a fast day and over 130 s on a slow one), so it is printed
 * beside them, before and after the runs.
 */
function hostReferenceMs() {
  const gemini = join(root, "node_modules", ".bin", "gemini");
  if (!existsSync(gemini)) return undefined;
  // Even --version writes projects.json temp files into $HOME/.gemini: a scratch HOME keeps the user's clean.
  const home = mkdtempSync(join(tmpdir(), "evals-bench-gemini-home-"));
  try {
    const times = [];
    for (let i = 0; i < 3; i++) {
      const before = childCpuMs();
      execFileSync(gemini, ["--version"], {
        stdio: "ignore",
        env: { ...process.env, HOME: home, GEMINI_CLI_NO_RELAUNCH: "true" },
      });
      const after = childCpuMs();
      if (before === undefined || after === undefined) return undefined;
      times.push(after - before);
    }
    return median(times);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const hostLine = (when, ms) =>
  ms === undefined ? "" : `  host speed ${when}: \`gemini --version\` took ${s(ms)} of CPU (median of 3)`;

/** One line per run, then where its CPU went by kind of process. */
function report(label, run) {
  console.log(
    `  ${label.padEnd(22)} ${s(run.wallMs).padStart(8)} wall, ${run.cpuMs === undefined ? "?" : s(run.cpuMs).padStart(8)} CPU, mean load ${run.load.toFixed(1)}, ${run.tests} eval tests, exit ${run.code}`,
  );
  if (run.code !== 0) {
    // The clone is gone after the run: its whole output is kept for reading the failures.
    const log = join(tmpdir(), `evals-bench-first-run-${label.replace(/\W+/g, "-")}.log`);
    writeFileSync(log, run.output);
    console.log(`${run.output.split("\n").slice(-40).join("\n")}\n  (the whole output: ${log})`);
  }
  const sampled = run.kinds.reduce((sum, kind) => sum + kind.cpuMs, 0);
  for (const kind of run.kinds.filter((kind) => kind.cpuMs >= 50)) {
    console.log(
      `      ${kind.kind.padEnd(42)} ${s(kind.cpuMs).padStart(7)} CPU in ${String(kind.processes).padStart(3)} processes (run-queue wait ${s(kind.waitMs)})`,
    );
  }
  if (run.cpuMs !== undefined) {
    console.log(
      `      ${"unsampled (processes shorter than 100 ms)".padEnd(42)} ${s(Math.max(0, run.cpuMs - sampled)).padStart(7)} CPU`,
    );
  }
}

const runs = { base: [], head: [], busy: [] };
const clones = [];
try {
  console.log(
    `HEAD ${head.slice(0, 9)}${baseCommit ? ` against base ${baseCommit.slice(0, 9)}` : ""}${dirty ? " (uncommitted changes are not measured)" : ""}; ${rounds} round(s)${busySpinners > 0 ? ` and a busy round (${busySpinners} spinning processes)` : ""}; ${availableParallelism()} cores, load ${loadavg()[0].toFixed(1)}`,
  );
  const referenceBefore = hostReferenceMs();
  if (referenceBefore !== undefined) console.log(hostLine("before the runs", referenceBefore));
  const measure = async (name, commit, label) => {
    const dir = freshClone(name, commit);
    clones.push(dir);
    const run = await firstRun(dir);
    rmSync(dir, { recursive: true, force: true });
    report(label, run);
    return run;
  };
  for (let round = 0; round < rounds; round++) {
    // Alternate which one goes first, so neither always meets the machine in the same state.
    const order = !baseCommit ? ["head"] : round % 2 === 0 ? ["base", "head"] : ["head", "base"];
    for (const name of order) {
      const commit = name === "base" ? baseCommit : head;
      runs[name].push(await measure(name, commit, `round ${round + 1} ${name === "base" ? "base" : "HEAD"}`));
    }
  }
  if (busySpinners > 0) {
    const busy = spinners(busySpinners);
    try {
      runs.busy.push(await measure("busy", head, `HEAD, ${busySpinners} spinners`));
    } finally {
      busy.stop();
    }
  }

  const referenceAfter = hostReferenceMs();
  const wall = (list) => median(list.map((run) => run.wallMs));
  const cpu = (list) => median(list.map((run) => run.cpuMs ?? Number.NaN));
  const all = [...runs.base, ...runs.head, ...runs.busy];
  const idle = runs.head.filter((run) => run.load < BUSY_LOAD);
  const busy = [...runs.head, ...runs.busy].filter((run) => run.load >= BUSY_LOAD);
  const cores = availableParallelism();

  const lastHead = runs.head.at(-1);
  const { builds, evals } = breakdown(lastHead.output);
  console.log(`\nwhere HEAD's last first run went (times as tsup and vitest report them):`);
  console.log(
    `  ${builds.tasks} build tasks: tsup JavaScript ${s(builds.js)}, declarations (.d.ts) ${s(builds.dts)} (summed over the tasks, which Nx runs several at a time)`,
  );
  for (const run of evals) {
    console.log(
      `  eval ${run.project.padEnd(34)} ${s(run.duration).padStart(8)}: vitest start (transform + import) ${s(run.start).padStart(7)}, tests ${s(run.tests).padStart(7)}`,
    );
  }

  console.log(`\nfirst \`npm run eval\` of a fresh clone (medians):`);
  if (referenceBefore !== undefined) console.log(hostLine("before the runs", referenceBefore));
  if (referenceAfter !== undefined) console.log(hostLine("after the runs", referenceAfter));
  if (runs.base.length > 0) {
    console.log(`  base ${s(wall(runs.base)).padStart(8)} wall, ${s(cpu(runs.base)).padStart(8)} CPU`);
    console.log(`  HEAD ${s(wall(runs.head)).padStart(8)} wall, ${s(cpu(runs.head)).padStart(8)} CPU`);
    console.log(
      `  HEAD / base, wall: ${(wall(runs.head) / wall(runs.base)).toFixed(3)}   CPU: ${(cpu(runs.head) / cpu(runs.base)).toFixed(3)}`,
    );
  }
  if (busy.length > 0) {
    console.log(
      `  busy machine (load >= ${BUSY_LOAD}): ${s(wall(busy))} wall, ${s(cpu(busy))} CPU (${busy.length} run(s); printed, not judged)`,
    );
  }
  if (idle.length > 0) {
    const ok = wall(idle) <= TARGET_MS;
    console.log(
      `  machine not busy (load < ${BUSY_LOAD}): ${s(wall(idle))} wall, ${s(cpu(idle))} CPU (goal <= ${s(TARGET_MS)} wall): ${ok ? "OK" : "OVER"}`,
    );
    if (!ok) process.exitCode = 1;
  } else {
    // CPU time hardly depends on the load: on idle cores the run can take no less than CPU / cores.
    console.log(
      `  every run met a busy machine: the goal (<= ${s(TARGET_MS)} wall at load < ${BUSY_LOAD}) is not judged; ${s(cpu(runs.head))} CPU on ${cores} idle cores is at least ${s(cpu(runs.head) / cores)} wall`,
    );
  }
  if (all.some((run) => run.code !== 0)) {
    console.log("a first run failed (see its output above)");
    process.exitCode = 1;
  }
} finally {
  for (const dir of clones) rmSync(dir, { recursive: true, force: true });
}
