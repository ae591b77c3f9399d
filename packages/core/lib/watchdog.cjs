"use strict";
/**
 * The parent-death watchdog of @evals (started by src/watchdog.ts, one per process that starts agents,
 * graders or other work that must not outlive it). Its parent tells it, one JSON line on stdin each,
 * what is in flight:
 *   {"add": {"id", "pid"?, "group"?, "marker"?, "redact"?: {"dir", "patterns": [{source, flags}]}, "remove"?: [paths]}}
 *   {"pid": {"id", "pid"}}   {"remove": "<id>"}
 * When the parent dies (even of SIGKILL) its end of the pipe closes; for every entry still in flight
 * the watchdog then kills its processes (`pid`, or with `group` its whole process group, and every
 * process whose environment carries EVALS_RUN_MARKER=`marker`), redacts the `redact` folder, deletes
 * the `remove` paths, and exits.
 * Plain CommonJS with Node built-ins only: it must start fast and without a build step.
 */
const { readdirSync, readFileSync, rmSync } = require("node:fs");
const { join } = require("node:path");

const MARKER_ENV = "EVALS_RUN_MARKER";
const entries = new Map();
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
  if (message.add) entries.set(message.add.id, message.add);
  if (message.pid && entries.has(message.pid.id)) entries.get(message.pid.id).pid = message.pid.pid;
  if (message.remove) entries.delete(message.remove);
}

function cleanUpAndExit() {
  if (cleaning) return;
  cleaning = true;
  for (const entry of entries.values()) {
    try {
      killEntry(entry);
    } catch {}
    try {
      if (entry.redact) redactFolder(entry.redact.dir, entry.redact.patterns);
    } catch {}
    for (const path of Array.isArray(entry.remove) ? entry.remove : []) {
      try {
        rmSync(path, { recursive: true, force: true, maxRetries: 3 });
      } catch {}
    }
  }
  process.exit(0);
}

/** SIGSTOP then SIGKILL every process of the entry, in rounds, until none is left. */
function killEntry(entry) {
  const target = typeof entry.pid === "number" && entry.pid > 0 ? (entry.group ? -entry.pid : entry.pid) : 0;
  for (let round = 0; round < 20; round++) {
    const pids = entry.marker ? markedProcesses(entry.marker) : [];
    const targetAlive = target !== 0 && signal(target, 0);
    if (pids.length === 0 && !targetAlive) return;
    for (const pid of pids) signal(pid, "SIGSTOP");
    if (targetAlive) signal(target, "SIGKILL");
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
  let names;
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const pids = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (`\0${readFileSync(`/proc/${name}/environ`, "latin1")}`.includes(needle)) pids.push(Number(name));
    } catch {}
  }
  return pids;
}

/** The folder with every secret replaced, through this package's redactor (its CommonJS build). */
function redactFolder(dir, patterns) {
  if (!dir || !Array.isArray(patterns)) return;
  const { redactTreeSync } = require(join(__dirname, "..", "dist", "index.cjs"));
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
