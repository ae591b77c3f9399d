// Fault injection: runs leave nothing behind and leak no secret. Four rows:
//  - orphans after SIGKILL: a child node process starts a real `claude` run (scripted loopback model
//    that never answers) and is SIGKILLed; a run is bad when any of its processes is still alive
//    10 s later;
//  - worktrees left after SIGKILL and the next start: child processes each start a trial worktree and
//    are SIGKILLed; then this process starts the next trial of the same repository; each leftover
//    worktree is bad;
//  - grader processes left after SIGKILL: child processes each run a command grader whose command
//    (a shell and two sleeps, in its own process group) keeps running, and are SIGKILLed; a grader is
//    bad when any process of its group is still alive 10 s later;
//  - secrets found in all written files after a run that prints planted secrets: a recorded run cats
//    a key file and prints its env; every (file, secret) found under the output root, the kept
//    sandbox and the recordings is bad.
// BENCH_FAULT_KILLS (default 3) sets how many runs and trials are killed.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeCodeRunner } from "@evals/claude-code";
import { runTrial } from "@evals/harness";
import {
  countToolResults,
  lastToolResult,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "@evals/vcr";
import { withTrialWorktree } from "@evals/worktree";
import { CLAUDE_BIN, envCount } from "../bench-kit.mjs";

const benchDir = fileURLToPath(new URL("../../", import.meta.url));
const claudeBin = CLAUDE_BIN;
const kills = envCount("BENCH_FAULT_KILLS", 3);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `code` (an ES module) in a child node process; resolves once it prints `ready`. */
function startChild(code, args) {
  const child = spawn(process.execPath, ["--input-type=module", "-e", code, "--", ...args], {
    cwd: benchDir,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const ready = new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`child never got ready: ${out}`)), 120_000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("ready")) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.once("exit", () => reject(new Error(`child ended early: ${out}`)));
  });
  return { child, ready, exited };
}

function markedPids(marker) {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = `\0${readFileSync(`/proc/${entry}/environ`, "latin1")}`;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const zombie = stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z";
      if (!zombie && environ.includes(`\0EVALS_RUN_MARKER=${marker}\0`)) pids.push(Number(entry));
    } catch {
      // Ended meanwhile, or not ours to read.
    }
  }
  return pids;
}

const RUN_CHILD = `
import { runAgent } from "@evals/claude-code";
import { scripted, startModelServer } from "@evals/vcr";
const [claudeBin, cwd, outputRoot] = process.argv.slice(1);
const server = await startModelServer({ source: scripted(() => new Promise(() => {})) });
await runAgent({ prompt: "hang", claudeBin, cwd, outputRoot, baseUrl: server.url, timeoutMs: 120_000,
  onStreamLine: (line) => { if (line.type === "system" && line.subtype === "init") console.log("ready"); } });
`;

async function orphansAfterSigkill(work) {
  let bad = 0;
  for (let i = 0; i < kills; i++) {
    const { child, ready, exited } = startChild(RUN_CHILD, [claudeBin, work, join(work, "out")]);
    await ready;
    // The run's marker, from the CLI (a child of the test process).
    let marker;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== child.pid) continue;
        const found = readFileSync(`/proc/${entry}/environ`, "latin1").match(/EVALS_RUN_MARKER=([^\0]+)/);
        if (found) marker = found[1];
      } catch {}
    }
    child.kill("SIGKILL");
    await exited;
    if (!marker) {
      bad++;
      continue;
    }
    for (let waited = 0; waited < 10_000 && markedPids(marker).length > 0; waited += 100) await sleep(100);
    const left = markedPids(marker);
    if (left.length > 0) {
      bad++;
      for (const pid of left) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
    }
  }
  return { label: "orphans after SIGKILL (runs with a process left)", tried: kills, bad };
}

const TRIAL_CHILD = `
import { withTrialWorktree } from "@evals/worktree";
const [repo, treesDir] = process.argv.slice(1);
await withTrialWorktree(repo, { treesDir, name: "killed" }, async () => {
  console.log("ready");
  await new Promise((resolve) => setTimeout(resolve, 120_000));
});
`;

async function worktreesAfterSigkill(work) {
  const repo = join(work, "repo");
  const treesDir = join(work, "trees");
  mkdirSync(repo);
  const git = (...args) =>
    execFileSync(
      "git",
      ["-C", repo, "-c", "user.name=bench", "-c", "user.email=bench@evals.invalid", ...args],
      {
        encoding: "utf8",
      },
    );
  git("init", "-q");
  writeFileSync(join(repo, "README.md"), "# bench\n");
  git("add", "--all");
  git("commit", "-q", "-m", "initial");
  const children = [];
  for (let i = 0; i < kills; i++) children.push(startChild(TRIAL_CHILD, [repo, treesDir]));
  await Promise.all(children.map((child) => child.ready));
  for (const { child } of children) child.kill("SIGKILL");
  await Promise.all(children.map((child) => child.exited));
  // The next start of a trial of the same repository.
  await withTrialWorktree(repo, { treesDir, name: "next" }, () => undefined);
  const listed = git("worktree", "list", "--porcelain")
    .split("\n")
    .filter((line) => line.startsWith("worktree ")).length;
  const folders = existsSync(treesDir) ? readdirSync(treesDir).filter((name) => name !== ".gitignore") : [];
  return {
    label: "worktrees left after SIGKILL and the next start",
    tried: kills,
    bad: Math.max(listed - 1, folders.length),
  };
}

const GRADER_CHILD = `
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCommandGrader } from "@evals/worktree";
const [dir] = process.argv.slice(1);
const pids = join(dir, "pids");
runCommandGrader(dir, { command: "sleep 300 & echo $! >> pids; echo $$ >> pids; sleep 300", timeoutMs: 600_000 });
const timer = setInterval(() => {
  if (existsSync(pids) && readFileSync(pids, "utf8").split("\\n").filter(Boolean).length === 2) {
    clearInterval(timer);
    console.log("ready");
  }
}, 50);
`;

/** The running processes of a process group. */
function groupMembers(pgid) {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z" && Number(fields[2]) === pgid) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

async function gradersAfterSigkill(work) {
  let bad = 0;
  for (let i = 0; i < kills; i++) {
    const dir = join(work, `grader-${i}`);
    mkdirSync(dir);
    const { child, ready, exited } = startChild(GRADER_CHILD, [dir]);
    await ready;
    // The grader's shell leads its process group (the sleeps are in it).
    const group = Number(readFileSync(join(dir, "pids"), "utf8").split("\n").filter(Boolean)[1]);
    child.kill("SIGKILL");
    await exited;
    for (let waited = 0; waited < 10_000 && groupMembers(group).length > 0; waited += 100) await sleep(100);
    if (groupMembers(group).length > 0) {
      bad++;
      try {
        process.kill(-group, "SIGKILL");
      } catch {}
    }
  }
  return { label: "grader processes left after SIGKILL (graders with a process left)", tried: kills, bad };
}

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const stat = lstatSync(path);
    if (stat.isDirectory()) out.push(...filesUnder(path));
    else if (stat.isFile()) out.push(path);
  }
  return out;
}

async function secretsAfterRun(work) {
  const project = join(work, "secrets-project");
  const outputRoot = join(work, "secrets-out");
  const cassettes = join(work, "cassettes");
  mkdirSync(project);
  const nonce = randomBytes(6).toString("hex");
  const secrets = [
    `sk-ant-api03-PLANTED${nonce}`,
    `ghp_PLANTED${nonce}abcdefghijklmnop`,
    `planted-gh-token-${nonce}`,
    `planted-header-${nonce}`,
    `planted-password-${nonce}`,
  ];
  writeFileSync(join(project, "secret.txt"), `api_key=${secrets[0]}\ngithub=${secrets[1]}\n`);
  const seen = [];
  const upstream = await startModelServer({
    source: scripted((request) => {
      seen.push(lastToolResult(request)?.text ?? "");
      switch (countToolResults(request)) {
        case 0:
          return reply(toolUse("Bash", { command: "cat secret.txt", description: "read the key" }));
        case 1:
          return reply(toolUse("Bash", { command: "env", description: "show env" }));
        default:
          return reply(text(`Found: ${seen.join(" ").slice(0, 4000)}`));
      }
    }),
  });
  let sandbox;
  try {
    const result = await runTrial(
      {
        suite: "faults",
        agent: claudeCodeRunner,
        caseId: "planted-secrets",
        caseValue: {},
        trial: 0,
        trials: 1,
        runId: `planted-${nonce}`,
        signal: new AbortController().signal,
        outputRoot,
        cassette: { mode: "record", dir: cassettes, upstream: upstream.url },
      },
      (context) =>
        context.runAgent({
          prompt: "find the key",
          options: { claudeBin },
          cwd: project,
          allowedTools: ["Bash"],
          keepSandbox: "always",
          env: {
            GITHUB_TOKEN: secrets[2],
            ANTHROPIC_CUSTOM_HEADERS: `X-Planted-Header: ${secrets[3]}`,
            MY_DB_PASSWORD: secrets[4],
          },
        }),
    );
    sandbox = result.sandbox_dir;
  } finally {
    await upstream.close();
  }
  // A run whose model never saw the secrets proves nothing: count it as bad.
  const printed = secrets.filter((secret) => secret.includes("header") || seen.join("\n").includes(secret));
  let bad = secrets.length - printed.length;
  for (const file of [...filesUnder(outputRoot), ...filesUnder(sandbox ?? ""), ...filesUnder(cassettes)]) {
    const content = readFileSync(file, "latin1");
    for (const secret of secrets) if (content.includes(secret)) bad++;
  }
  if (sandbox) rmSync(sandbox, { recursive: true, force: true });
  return {
    label: "secrets found in all written files after a run that prints planted secrets",
    tried: secrets.length,
    bad,
  };
}

export default async function leftovers() {
  const work = mkdtempSync(join(tmpdir(), "evals-fault-leftovers-"));
  try {
    return [
      await orphansAfterSigkill(work),
      await worktreesAfterSigkill(work),
      await gradersAfterSigkill(work),
      await secretsAfterRun(work),
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
