// Where a process tree's CPU goes, by kind of process: Nx, npm, tsup, vitest, each agent CLI. Linux
// only (/proc). Samples the tree every 100 ms and keeps each process's last CPU (user + system) and
// run-queue wait (/proc/<pid>/schedstat: time it was ready but another process had the core). A
// process that lives less than one sample is missed: the caller compares the sum with the tree's
// exact CPU (its rusage) and shows the rest as unsampled.
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100;

/** The kind of process `argv` is, for the breakdown: what it runs, not where it lives. */
export function processKind(argv) {
  const exe = argv[0]?.split("/").pop() ?? "";
  const script = exe.startsWith("node") ? (argv.slice(1).find((arg) => !arg.startsWith("-")) ?? "") : "";
  const path = `${exe} ${script}`;
  if (/plugins\/[^/]+\/dist\//.test(script)) return "plugin scripts";
  if (/^claude(\.exe)?$/.test(exe)) return "claude CLI";
  if (/^opencode(\.exe)?$/.test(exe)) return "opencode CLI";
  // A CLI started through its node_modules/.bin link shows the link, not the package's path.
  if (/^codex$|@openai\/codex\/|\.bin\/codex$/.test(path)) return "codex CLI";
  if (/@google\/gemini-cli\/|\.bin\/gemini$/.test(script)) return "gemini CLI";
  // npm and Nx rename their process ("npm run eval"): the title is argv[0].
  if (/node_modules\/nx\/|\.bin\/nx$/.test(script) || /^nx\b/.test(exe)) return "Nx";
  if (/npm-cli\.js$|\/npm$/.test(script) || /^npm\b/.test(exe)) return "npm";
  if (/\.bin\/tsup$|\/tsup\//.test(script)) return "tsup (build-js)";
  if (exe === "esbuild") return "esbuild (tsup's and vitest's)";
  if (/\.bin\/vitest$|vitest\.mjs$/.test(script)) return "vitest (main)";
  if (/\/vitest\//.test(script)) return "vitest workers (harness, model servers)";
  if (/watchdog/.test(script)) return "run watchdogs";
  if (exe === "git") return "git";
  if (/^(ba|da)?sh$/.test(exe)) return "shells";
  if (exe.startsWith("node")) return "other node";
  return "other";
}

function readTree(rootPid) {
  const parents = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Ended between the listing and the read.
    }
  }
  const inTree = (pid) => {
    for (let at = pid, hops = 0; at > 1 && hops < 64; at = parents.get(at), hops++) {
      if (at === rootPid) return true;
    }
    return false;
  };
  return [...parents.keys()].filter(inTree);
}

/**
 * Starts sampling the tree under `rootPid`. `stop()` ends it and returns, per kind, the processes
 * seen, their CPU and their run-queue wait in ms.
 */
export function sampleTreeCpu(rootPid, intervalMs = 100) {
  const seen = new Map();
  const sample = () => {
    for (const pid of readTree(rootPid)) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
        const waitMs = Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[1]) / 1e6;
        const entry = seen.get(pid) ?? {};
        // Read again while the process is young: a child sampled between its fork and its exec still
        // shows its parent's command line (a claude CLI started by a vitest worker counted as the worker).
        if (entry.samples === undefined || entry.samples < 3) {
          entry.kind = processKind(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean));
          entry.samples = (entry.samples ?? 0) + 1;
        }
        entry.cpuMs = cpuMs;
        entry.waitMs = waitMs;
        seen.set(pid, entry);
      } catch {
        // Ended while being read: its last sample stands.
      }
    }
  };
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const kinds = new Map();
      for (const { kind, cpuMs = 0, waitMs = 0 } of seen.values()) {
        const total = kinds.get(kind) ?? { processes: 0, cpuMs: 0, waitMs: 0 };
        total.processes++;
        total.cpuMs += cpuMs;
        total.waitMs += waitMs;
        kinds.set(kind, total);
      }
      return [...kinds].map(([kind, total]) => ({ kind, ...total })).sort((a, b) => b.cpuMs - a.cpuMs);
    },
  };
}
