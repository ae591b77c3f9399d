// The first `npm run eval` of a fresh clone: every eval suite replayed through the real claude CLI,
// with nothing in the Nx cache for it (NX_SKIP_NX_CACHE=true: what a new clone, or CI without a
// cache, pays). Target: under 60 s on the 2-core development machine.
//
// Side by side in one run: a fresh clone of the base commit (BENCH_FIRST_RUN_BASE, default the
// commit before the first-run work: eval waited for full builds with .d.ts, one eval file at a time
// per project, Vite transformed the packages' dist) and a fresh clone of HEAD, interleaved over
// BENCH_FIRST_RUN_ROUNDS rounds (default 1; each round is two full first runs, minutes each). Each
// clone gets the workspace's node_modules as hard links (`cp -al`, minus the caches tools write
// into), so nothing is installed and no other checkout is touched. The shared Nx cache in the home
// folder is never cleared: it is only skipped.
//
// Besides wall time it prints the CPU time of each run's process tree (steadier than wall time on a
// machine shared with others) and where HEAD's first run goes: tsup's JavaScript and declaration
// builds, and per eval project vitest's start (transform + import) and its tests.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { childCpuMs } from "./bench-kit.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
/** The last commit before the first-run work (its parent on the h-speed branch). */
const DEFAULT_BASE = "f9932bf74d32c52a896f852bdec37fd5f89e6157";
const base = process.env.BENCH_FIRST_RUN_BASE ?? DEFAULT_BASE;
const rounds = Number(process.env.BENCH_FIRST_RUN_ROUNDS ?? 1);
const TARGET_MS = 60_000;

const git = (cwd, ...args) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
const head = git(root, "rev-parse", "HEAD");
const baseCommit = git(root, "rev-parse", `${base}^{commit}`);
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
      resolve({
        code,
        wallMs,
        cpuMs: cpuBefore === undefined ? undefined : cpuAfter - cpuBefore,
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

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;

const runs = { base: [], head: [] };
const clones = [];
try {
  console.log(
    `base ${baseCommit.slice(0, 9)} against HEAD ${head.slice(0, 9)}${dirty ? " (uncommitted changes are not measured)" : ""}; ${rounds} round(s), ${availableParallelism()} cores, load ${loadavg()[0].toFixed(1)}`,
  );
  for (let round = 0; round < rounds; round++) {
    // Alternate which one goes first, so neither always meets the machine in the same state.
    const order = round % 2 === 0 ? ["base", "head"] : ["head", "base"];
    for (const name of order) {
      const dir = freshClone(name, name === "base" ? baseCommit : head);
      clones.push(dir);
      const run = await firstRun(dir);
      runs[name].push(run);
      console.log(
        `  round ${round + 1} ${name.padEnd(4)} ${s(run.wallMs).padStart(8)} wall${run.cpuMs === undefined ? "" : `, ${s(run.cpuMs).padStart(8)} CPU`}, ${run.tests} eval tests, exit ${run.code}, load ${loadavg()[0].toFixed(1)}`,
      );
      if (run.code !== 0) console.log(run.output.split("\n").slice(-40).join("\n"));
      rmSync(dir, { recursive: true, force: true });
    }
  }

  const wall = (name) => median(runs[name].map((run) => run.wallMs));
  const cpu = (name) => median(runs[name].map((run) => run.cpuMs ?? Number.NaN));
  console.log(`\nfirst \`npm run eval\` of a fresh clone, medians:`);
  console.log(`  base  ${s(wall("base")).padStart(8)} wall, ${s(cpu("base")).padStart(8)} CPU`);
  console.log(`  HEAD  ${s(wall("head")).padStart(8)} wall, ${s(cpu("head")).padStart(8)} CPU`);

  for (const name of ["base", "head"]) {
    const { builds, evals } = breakdown(runs[name].at(-1).output);
    console.log(
      `\nwhere ${name === "head" ? "HEAD" : "base"}'s first run went (last round; times as tsup and vitest report them):`,
    );
    console.log(
      `  ${builds.tasks} build tasks: tsup JavaScript ${s(builds.js)}, declarations (.d.ts) ${s(builds.dts)} (summed over the tasks, which Nx runs several at a time)`,
    );
    for (const run of evals) {
      console.log(
        `  eval ${run.project.padEnd(34)} ${s(run.duration).padStart(8)}: vitest start (transform + import) ${s(run.start).padStart(7)}, tests ${s(run.tests).padStart(7)}`,
      );
    }
  }

  const ratio = wall("head") / wall("base");
  const cpuRatio = cpu("head") / cpu("base");
  console.log(`\nHEAD / base, wall: ${ratio.toFixed(3)}   CPU: ${cpuRatio.toFixed(3)}`);
  console.log(
    `HEAD's first run: ${s(wall("head"))} (target < ${s(TARGET_MS)}): ${wall("head") < TARGET_MS ? "OK" : "OVER"}${loadavg()[0] > availableParallelism() ? ` — the machine is busy (load ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores): judge by the ratios` : ""}`,
  );
  const failed = [...runs.base, ...runs.head].some((run) => run.code !== 0);
  if (failed) {
    console.log("a first run failed (see its output above)");
    process.exitCode = 1;
  }
} finally {
  for (const dir of clones) rmSync(dir, { recursive: true, force: true });
}
