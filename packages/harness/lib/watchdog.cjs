"use strict";
/**
 * The parent-death watchdog of @evals/harness (started by src/run-guard.ts, one per process that runs
 * agents). Its parent tells it, one JSON line on stdin each, which runs are in flight:
 *   {"add": {"marker", "pid"?, "outputDir", "sandbox", "lockFile", "patterns": [{source, flags}]}}
 *   {"pid": {"marker", "pid"}}   {"remove": "<marker>"}
 * When the parent dies (even of SIGKILL) its end of the pipe closes; the watchdog then kills every
 * process of the runs still in flight (found by the run marker in their environment, and the CLI's
 * process group), redacts their output folders, deletes their sandboxes and lock files, and exits.
 * Plain CommonJS with Node built-ins only: it must start fast and without a build step.
 */
const { readdirSync, readFileSync, rmSync } = require("node:fs");

const MARKER_ENV = "EVALS_RUN_MARKER";
const runs = new Map();
const parent = process.ppid;
let pending = "";
let cleaning = false;

process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
    handle(pending.slice(0, newline));
    pending = pending.slice(newline + 1);
  }
});
process.stdin.on("end", cleanUpAndExit);
process.stdin.on("error", cleanUpAndExit);
// Belt and braces: a parent that died is replaced by init (or a subreaper) as our parent.
setInterval(() => {
  if (process.ppid !== parent) cleanUpAndExit();
}, 1000);

function handle(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.add) runs.set(message.add.marker, message.add);
  if (message.pid && runs.has(message.pid.marker)) runs.get(message.pid.marker).pid = message.pid.pid;
  if (message.remove) runs.delete(message.remove);
}

function cleanUpAndExit() {
  if (cleaning) return;
  cleaning = true;
  for (const run of runs.values()) {
    try {
      killRun(run);
    } catch {}
    try {
      redactFolder(run.outputDir, run.patterns);
    } catch {}
    if (run.sandbox) rmSync(run.sandbox, { recursive: true, force: true, maxRetries: 3 });
    if (run.lockFile) rmSync(run.lockFile, { force: true });
  }
  process.exit(0);
}

/** SIGSTOP then SIGKILL every process of the run, in rounds, until none is left. */
function killRun(run) {
  for (let round = 0; round < 20; round++) {
    const pids = markedProcesses(run.marker);
    const groupAlive = run.pid !== undefined && signal(-run.pid, 0);
    if (pids.length === 0 && !groupAlive) return;
    for (const pid of pids) signal(pid, "SIGSTOP");
    if (groupAlive) signal(-run.pid, "SIGKILL");
    for (const pid of pids) signal(pid, "SIGKILL");
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
}

function signal(pid, sig) {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

function markedProcesses(marker) {
  const needle = `\0${MARKER_ENV}=${marker}\0`;
  let entries;
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const pids = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (`\0${readFileSync(`/proc/${entry}/environ`, "latin1")}`.includes(needle)) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

/** The run folder with every secret replaced, through @evals/core's redactor. */
function redactFolder(dir, patterns) {
  if (!dir || !Array.isArray(patterns)) return;
  const { redactTreeSync } = require("@evals/core");
  const compiled = patterns.map((pattern) => new RegExp(pattern.source, pattern.flags));
  redactTreeSync(dir, {
    text(value) {
      let out = value;
      for (const pattern of compiled) {
        pattern.lastIndex = 0;
        out = out.replace(pattern, "[REDACTED]");
      }
      return out;
    },
  });
}
