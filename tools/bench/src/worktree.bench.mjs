// @evals/worktree: (1) median time to create and remove a trial worktree of a generated 5,000-file
// repository, next to the bare `git worktree add` + `git worktree remove` commands on the same repo;
// (2) the speed-up of 8 replayed trials run 4 at a time against one at a time.
//
// A "replayed trial" here is a deterministic stand-in for an agent replayed from a cassette: a Node
// process that appends captured events to the trial's events.jsonl with a pause per step (standing in
// for the replayed model's latency), edits a tracked file and adds a new one; the trial then saves its
// outcome (diff + new files) as every trial does.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createWorktree, runTrials } from "@evals/worktree";
import { envCount } from "./bench-kit.mjs";

const FILES = envCount("BENCH_WORKTREE_FILES", 5_000);
const RUNS = envCount("BENCH_WORKTREE_RUNS", 9);
const TRIALS = 8;
const STEPS = 10;
const STEP_MS = 50;

const REPLAYED_AGENT = `
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const { EVALS_OUTPUT_DIR, TEST_RUN_ID } = process.env;
const events = join(EVALS_OUTPUT_DIR, "test-output", TEST_RUN_ID, "events.jsonl");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
for (let seq = 0; seq < ${STEPS}; seq++) {
  const event = { session_id: "s", transcript_path: "/dev/null", cwd: process.cwd(), hook_event_name: "PreToolUse",
    tool_name: "Read", tool_input: { file_path: "shared.txt" }, tool_use_id: "toolu_" + seq };
  appendFileSync(events, JSON.stringify({ version: 1, captured_at: new Date().toISOString(), run_id: TEST_RUN_ID, seq, event }) + "\\n");
  await sleep(${STEP_MS});
}
writeFileSync("shared.txt", readFileSync("shared.txt", "utf8") + "edited by " + TEST_RUN_ID + "\\n");
writeFileSync("made-by-" + TEST_RUN_ID + ".txt", "new\\n");
`;

const base = realpathSync(mkdtempSync(join(tmpdir(), "evals-bench-worktree-")));
const repo = join(base, "repo");
const treesDir = join(base, "trees");
const emptyConfig = join(base, "gitconfig");
writeFileSync(emptyConfig, "");
// No machine git config, a fixed identity: the numbers depend on git and the disk only.
Object.assign(process.env, {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: emptyConfig,
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@evals.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@evals.invalid",
});
const git = (...args) =>
  execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

try {
  mkdirSync(repo);
  git("init", "-q", "-b", "main");
  for (let i = 0; i < FILES; i++) {
    const dir = join(repo, "src", `module-${String(Math.floor(i / 100)).padStart(2, "0")}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file-${i}.ts`), `export const value${i} = ${i};\n// ${"x".repeat(i % 200)}\n`);
  }
  writeFileSync(join(repo, "shared.txt"), "original\n");
  git("add", "--all");
  git("commit", "-q", "-m", "generated");
  console.log(`repository: ${FILES.toLocaleString("en")} files; ${RUNS} runs each (after one warm-up)`);

  // (1) create + remove, ours against bare git, interleaved so both see the same machine state.
  const ours = { create: [], remove: [], total: [] };
  const bare = { total: [] };
  for (let run = 0; run <= RUNS; run++) {
    let start = performance.now();
    const worktree = await createWorktree(repo, { treesDir, testId: `bench-${run}` });
    const created = performance.now() - start;
    start = performance.now();
    await worktree.remove();
    const removed = performance.now() - start;

    start = performance.now();
    const path = join(base, `bare-${run}`);
    git("worktree", "add", "--detach", path, "HEAD");
    git("worktree", "remove", "--force", path);
    const bareTotal = performance.now() - start;
    if (run === 0) continue; // warm-up
    ours.create.push(created);
    ours.remove.push(removed);
    ours.total.push(created + removed);
    bare.total.push(bareTotal);
  }
  const ms = (value) => `${value.toFixed(0)} ms`;
  console.log(
    `create + remove a trial worktree: median ${ms(median(ours.total))} ` +
      `(create ${ms(median(ours.create))}, remove ${ms(median(ours.remove))})`,
  );
  console.log(`bare git worktree add + remove:   median ${ms(median(bare.total))}`);
  console.log(
    `overhead of createWorktree/remove over bare git (checks, metadata, prune): ${(median(ours.total) / median(bare.total)).toFixed(2)}x`,
  );

  // (2) 8 replayed trials, one at a time and 4 at a time.
  const agent = join(base, "replayed-agent.mjs");
  writeFileSync(agent, REPLAYED_AGENT);
  const trialsAt = async (concurrency) => {
    const start = performance.now();
    const reports = await runTrials(
      repo,
      { trials: TRIALS, concurrency, treesDir, name: `c${concurrency}` },
      (trial) => runNode(agent, trial.path, trial.env),
    );
    const failed = reports.filter((report) => !report.ok || report.outcome?.files.length !== 2);
    if (failed.length > 0) throw new Error(`${failed.length} trials failed: ${failed.map((r) => r.error)}`);
    return performance.now() - start;
  };
  console.log(
    `replayed trial: a stand-in agent process (${STEPS} captured events ${STEP_MS} ms apart, one edit, one new file) ` +
      "+ outcome capture, each in its own worktree",
  );
  const serial = await trialsAt(1);
  const parallel = await trialsAt(4);
  console.log(`${TRIALS} trials one at a time: ${ms(serial)}`);
  console.log(`${TRIALS} trials 4 at a time:    ${ms(parallel)}`);
  console.log(
    `speed-up 4 at a time vs one at a time: ${(serial / parallel).toFixed(2)}x ` +
      `(ideal 4x; ${availableParallelism()} CPUs, load average ${loadavg()[0].toFixed(1)}: checkouts compete for them)`,
  );
} finally {
  rmSync(base, { recursive: true, force: true });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function runNode(script, cwd, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], {
      cwd,
      env: { ...process.env, ...env },
      stdio: "inherit",
    });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`agent exited with ${code}`))));
  });
}
