// @evals/hooks: what capture costs, measured side by side in one run.
//
// 1. One hook call: the wall time of each entry (spawn, read the event on stdin, append, exit)
//    against a bare `node -e 0` and a bare `dash -c :` spawned the same way, interleaved.
// 2. A whole run (BENCH_HOOK_FOCUS=1: the judged variants only): the real claude CLI against the scripted loopback model (Bash, Read, answer, in a
//    project with a CLAUDE.md), interleaved, BENCH_HOOK_RUNS rounds (default 9): without capture;
//    with what runAgent registers (HTTP hooks to the collector in this process, for the events the
//    stream-json output does not carry: STREAM_GAP_HOOK_EVENTS); the same HTTP hooks on every default
//    event; the command hook (default entry) on runAgent's events and on every default event (a
//    user's settings or plugin, outside the harness); and hooks that do nothing (`true`) on every
//    default event. Targets (median of the ratios within each round, wall and CPU, CPU counting this
//    process too, where the collector and the model server run): runAgent's HTTP capture <= 1.05x an
//    uncaptured run, the command hook on every event <= 1.15x, with no event lost: every hook the CLI
//    reports starting (--include-hook-events) is in events.jsonl. BENCH_ASYNC=1 adds the shell entry
//    registered with Claude Code's `async: true` (measured: no faster here, and it lost a run's last
//    event).
//    BENCH_HOOK_PROBE=1 (or some of its keys: flag,settings,collector,never,prompt,instructions,again,
//    hooked: runAgent's capture as it was before it read the session transcript)
//    adds variants that split runAgent's HTTP capture into its parts (see docs/benchmarks.md).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { findTranscript, transcriptEvents } from "@evals/claude-code";
import { runFolderPath } from "@evals/core";
import {
  EVENTS_FILE,
  findDash,
  hookBinPath,
  hookSettings,
  hookShellPath,
  httpHookSettings,
  readEvents,
  STREAM_GAP_HOOK_EVENTS,
  STREAM_GAP_TOOL_MATCHER,
  startHookCollector,
  TRANSCRIPT_HOOK_EVENTS,
} from "@evals/hooks";
import { startModelServer } from "@evals/vcr";
import { bareClaude, childCpuMs, envCount, LIST_THEN_READ, listThenRead, median } from "./bench-kit.mjs";

const calls = envCount("BENCH_HOOK_CALLS", 200, 100);
const rounds = envCount("BENCH_HOOK_RUNS", 9, 3);
const warmup = 10;
const work = mkdtempSync(join(tmpdir(), "evals-bench-hooks-"));
const bin = hookBinPath();
const dash = findDash();

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

// ---- 1. One hook call -------------------------------------------------------------------------

function oneCall() {
  const root = join(work, "calls");
  // A real payload: the PostToolUse of a Read (file content included) from the 2.1.330 fixtures.
  const fixture = new URL("../../../fixtures/claude-code-2.1.330/multi-tool/hooks.jsonl", import.meta.url);
  const payload = readFileSync(fixture, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line).input)
    .find((input) => input.hook_event_name === "PostToolUse" && input.tool_name === "Read");
  const input = JSON.stringify(payload);
  const baseEnv = { PATH: process.env.PATH, FORCE_COLOR: "0" };
  const capture = (runId) => ({ ...baseEnv, TEST_MODE: "true", TEST_RUN_ID: runId, EVALS_OUTPUT_DIR: root });
  const variants = {
    "node -e 0": [process.execPath, ["-e", "0"], baseEnv],
    "node entry (capturing)": [process.execPath, [bin], capture("node-entry")],
    "node entry (TEST_MODE unset)": [process.execPath, [bin], baseEnv],
    ...(dash
      ? {
          "dash -c :": [dash, ["-c", ":"], baseEnv],
          "shell entry (capturing)": [dash, [hookShellPath(), process.execPath], capture("shell-entry")],
        }
      : {}),
  };
  const names = Object.keys(variants);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < warmup + calls; round++) {
    // Rotate the order every round so no variant always runs right after another.
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      const [command, args, env] = variants[name];
      const start = process.hrtime.bigint();
      const result = spawnSync(command, args, { input, env, stdio: ["pipe", "pipe", "pipe"] });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (result.status !== 0 || result.stdout.length > 0)
        throw new Error(`${name} failed: ${result.stderr}`);
      if (round >= warmup) times[name].push(ms);
    }
  }
  return { names, times, input, root };
}

// BENCH_HOOK_PROBE=1 is about whole runs only.
if (!process.env.BENCH_HOOK_PROBE) await measureOneCall();

async function measureOneCall() {
  const single = oneCall();
  for (const runId of ["node-entry", ...(dash ? ["shell-entry"] : [])]) {
    const captured = await readEvents(runFolderPath(runId, single.root));
    if (captured.length !== warmup + calls)
      throw new Error(`${runId}: expected ${warmup + calls} captured events, got ${captured.length}`);
  }
  console.log(`1. one hook call: ${calls} calls each, interleaved; payload ${single.input.length} bytes`);
  for (const name of single.names) {
    const values = single.times[name];
    console.log(
      `  ${name.padEnd(30)} median ${quantile(values, 0.5).toFixed(1).padStart(6)} ms   p90 ${quantile(values, 0.9).toFixed(1).padStart(6)} ms`,
    );
  }
  const bareNode = quantile(single.times["node -e 0"], 0.5);
  const nodeRatio = quantile(single.times["node entry (capturing)"], 0.5) / bareNode;
  console.log(
    `  node entry / bare node start: ${nodeRatio.toFixed(2)}x (target <= 1.25x): ${nodeRatio <= 1.25 ? "OK" : "OVER"}`,
  );
  if (dash) {
    const shell = quantile(single.times["shell entry (capturing)"], 0.5);
    console.log(
      `  shell entry / bare node start: ${(shell / bareNode).toFixed(2)}x (${shell.toFixed(1)} ms a call)`,
    );
  }
}

// ---- 2. A whole run of the real CLI -----------------------------------------------------------

const project = join(work, "project");
mkdirSync(project);
writeFileSync(join(project, "a.txt"), "hello\n");
// Most projects have one: the CLI loads it itself (an InstructionsLoaded event runAgent captures).
writeFileSync(join(project, "CLAUDE.md"), "# Notes\nKeep answers short.\n");
const outputRoot = join(work, "out");

const settingsFile = (name, options, extra = {}) => {
  const file = join(work, `${name}.settings.json`);
  const settings = hookSettings(options);
  for (const groups of Object.values(settings.hooks))
    for (const group of groups) for (const hook of group.hooks) Object.assign(hook, extra);
  writeFileSync(file, JSON.stringify(settings));
  return file;
};
// runAgent's capture: the events the stream does not carry.
const RUN_AGENT_EVENTS = { events: STREAM_GAP_HOOK_EVENTS, toolMatcher: STREAM_GAP_TOOL_MATCHER };
// A variant: the settings file given with --settings (none: no flag), or `http` (a collector is
// started per run, its url names the run, and these events are registered for it), and whether
// --include-hook-events is passed (every variant passes it unless it says otherwise).
const http = (events) => ({ http: events });
// runAgent reads the prompts and instruction files from the session transcript after the run.
const HTTP = { ...http(RUN_AGENT_EVENTS), transcript: true };
const HTTP_ALL = http({});
const COMMAND = { settings: settingsFile("command-all", {}) };
const runVariants = {
  "no capture": {},
  "HTTP, runAgent's events": HTTP,
  "HTTP, every default event": HTTP_ALL,
  "command, runAgent's events": { settings: settingsFile("command-gap", RUN_AGENT_EVENTS) },
  "command, every default event": COMMAND,
  ...(process.env.BENCH_ASYNC
    ? { "command, every event, async": { settings: settingsFile("command-async", {}, { async: true }) } }
    : {}),
  // The floor of a command hook: every default event registered with a command that does nothing.
  "true, every default event": { settings: settingsFile("true", { command: "true" }), counts: false },
};
// BENCH_HOOK_FOCUS=1: only what the goals judge (no capture, runAgent's HTTP capture, the command
// hook), so more rounds fit in the same time: at a load of 20 one variant's CPU varies by +-20%.
if (process.env.BENCH_HOOK_FOCUS) {
  for (const name of Object.keys(runVariants))
    if (!["no capture", "HTTP, runAgent's events", "command, every default event"].includes(name))
      delete runVariants[name];
}
// BENCH_HOOK_PROBE=1: where runAgent's HTTP capture spends its cost, one part at a time (with
// FOCUS, instead of the command hook): the flag alone, a settings file alone, the collector alone,
// an HTTP hook that never fires (SubagentStart: no subagent here), each of the two that fire, and
// "no capture" again (the noise floor: identical runs differ by this much at this load).
// A comma-separated list of their keys runs only those (BENCH_HOOK_PROBE=never,collector).
const PROBE = process.env.BENCH_HOOK_PROBE;
if (PROBE) {
  if (process.env.BENCH_HOOK_FOCUS) delete runVariants["command, every default event"];
  const empty = join(work, "empty.settings.json");
  writeFileSync(empty, "{}");
  const probes = {
    // The same run as "no capture": how far two identical variants differ at this load.
    again: ["probe: no capture again", {}],
    flag: ["probe: no --include-hook-events", { noHookEvents: true }],
    settings: ["probe: empty settings file", { settings: empty, counts: false }],
    collector: ["probe: collector, no hooks", { collectorOnly: true }],
    never: ["probe: HTTP, never fires", http({ events: ["SubagentStart"] })],
    prompt: ["probe: HTTP, UserPromptSubmit", http({ events: ["UserPromptSubmit"] })],
    instructions: ["probe: HTTP, InstructionsLoaded", http({ events: ["InstructionsLoaded"] })],
    // runAgent's capture before it read the transcript: the same hooks plus the transcript's two.
    hooked: [
      "probe: HTTP, runAgent's events + the transcript's",
      http({ ...RUN_AGENT_EVENTS, events: [...STREAM_GAP_HOOK_EVENTS, ...TRANSCRIPT_HOOK_EVENTS] }),
    ],
  };
  const wanted = PROBE === "1" ? Object.keys(probes) : PROBE.split(",");
  for (const key of wanted) {
    if (!probes[key])
      throw new Error(`BENCH_HOOK_PROBE: no probe ${key} (${Object.keys(probes).join(", ")})`);
    const [name, variant] = probes[key];
    runVariants[name] = variant;
  }
}
const targets = new Map([
  [HTTP, 1.05],
  [COMMAND, 1.15],
]);

const model = () => listThenRead(project);

let runs = 0;
async function claudeRun(variant) {
  const server = await startModelServer({ source: model() });
  const runId = `run-${++runs}`;
  const cpuBefore = childCpuMs();
  const ownBefore = process.cpuUsage();
  const collector =
    variant.http || variant.collectorOnly ? await startHookCollector({ runId, outputRoot }) : undefined;
  let settings = variant.settings;
  if (variant.http) {
    settings = join(work, `${runId}.settings.json`);
    writeFileSync(settings, JSON.stringify(httpHookSettings({ url: collector.url, ...variant.http })));
  }
  const { code, stdout, ms, after } = await bareClaude({
    work,
    cwd: project,
    prompt: LIST_THEN_READ,
    baseUrl: server.url,
    args: [
      ...(variant.noHookEvents ? [] : ["--include-hook-events"]),
      ...(settings ? ["--settings", settings] : []),
    ],
    env: { TEST_MODE: "true", TEST_RUN_ID: runId, EVALS_OUTPUT_DIR: outputRoot },
    ...(variant.transcript
      ? { afterExit: ({ configDir, stdout }) => readTranscript(configDir, stdout, runId) }
      : {}),
  });
  await collector?.close();
  const own = process.cpuUsage(ownBefore);
  const cpu = cpuBefore === undefined ? undefined : childCpuMs() - cpuBefore + (own.user + own.system) / 1000;
  await server.close();
  if (code !== 0 || !stdout.includes('"type":"result"')) throw new Error(`claude failed (exit ${code})`);
  if (variant.transcript && after !== "UserPromptSubmit,InstructionsLoaded")
    throw new Error(`the transcript lacked the prompt or the CLAUDE.md: ${after}`);
  const started_ = stdout.split("\n").filter((line) => line.includes('"subtype":"hook_started"')).length;
  let captured = 0;
  const folder = runFolderPath(runId, outputRoot);
  // A run may fire none of the registered events: then there is no events.jsonl.
  if (capturing(variant) && existsSync(join(folder, EVENTS_FILE)))
    captured = (await readEvents(folder)).length;
  return { ms, cpu, ownCpu: (own.user + own.system) / 1000, fired: started_, captured };
}
/** What runAgent reads from the transcript (see @evals/claude-code's transcriptEvents): the event names. */
function readTranscript(configDir, stdout, runId) {
  const sessionId = JSON.parse(
    stdout.split("\n").find((line) => line.includes('"subtype":"init"')),
  ).session_id;
  const file = findTranscript(configDir, sessionId);
  const events = file ? transcriptEvents(file, { sessionId, cwd: project, runId }) : [];
  return [...new Set(events.map((line) => line.event.hook_event_name))].sort().reverse().join(",");
}
// Whether a variant captures events (its lost events are counted).
const capturing = (variant) => Boolean(variant.http || variant.settings) && variant.counts !== false;

const names = Object.keys(runVariants);
const results = Object.fromEntries(names.map((name) => [name, []]));
// Each hook event starts processes on the agent's path: on a loaded machine every process start
// waits for a CPU, so the ratios grow with the load. Printed so a reader can judge the numbers.
const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(" / ");
const loadBefore = load();
try {
  for (let round = -1; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + Math.max(round, 0)) % names.length]);
    for (const name of order) {
      const result = await claudeRun(runVariants[name]);
      if (round >= 0) results[name].push(result);
    }
  }
  console.log(
    `\n2. the real claude CLI, scripted run (Bash, Read, answer), ${rounds} interleaved rounds, medians:`,
  );
  const loadLine = `load average (1 / 5 / 15 min) before ${loadBefore}, after ${load()} (${cpus().length} CPUs)`;
  console.log(`  ${loadLine}`);
  const hasCpu = (name) => results[name].every((run) => run.cpu !== undefined);
  const counts = (name) => !capturing(runVariants[name]);
  for (const name of names) {
    const list = results[name];
    const cpu = hasCpu(name)
      ? `   CPU ${median(list.map((run) => run.cpu))
          .toFixed(0)
          .padStart(5)} ms (this process ${median(list.map((run) => run.ownCpu)).toFixed(0)} ms)`
      : "";
    const events = counts(name)
      ? ""
      : `   events captured/fired ${list.map((run) => `${run.captured}/${run.fired}`).join(" ")}`;
    console.log(
      `  ${name.padEnd(30)} ${median(list.map((run) => run.ms))
        .toFixed(0)
        .padStart(6)} ms${cpu}   (wall: ${list.map((run) => run.ms.toFixed(0)).join(", ")})${events}`,
    );
  }
  // The load of a shared machine drifts over minutes: each round runs every variant back to back,
  // so the ratio is taken within each round, and the median of those is the one judged.
  const paired = (name, key) =>
    median(results[name].map((run, round) => run[key] / results["no capture"][round][key]));
  console.log(`\n  ratios to no capture (median of the ${rounds} per-round ratios), at ${loadLine}:`);
  // InstructionsLoaded (the CLAUDE.md) is captured but never reported in the stream: one more captured than fired.
  for (const name of names.slice(1)) {
    const variant = runVariants[name];
    const wall = paired(name, "ms");
    const cpu = hasCpu(name) ? paired(name, "cpu") : Number.NaN;
    const fired = median(results[name].map((run) => run.fired));
    const lost = results[name].reduce((sum, run) => sum + Math.max(0, run.fired - run.captured), 0);
    const captured = median(results[name].map((run) => run.captured));
    const events = counts(name)
      ? `${String(fired).padStart(2)} hooks fired a run`
      : `${String(fired).padStart(2)} hooks fired a run, ${captured} events captured, lost ${lost}`;
    const goal = targets.get(variant);
    // runAgent's HTTP capture is judged on wall and CPU; the command hook on wall.
    const judged = variant === HTTP ? wall <= goal && cpu <= goal : wall <= goal;
    const target =
      goal === undefined
        ? ""
        : `   target <= ${goal}x${variant === HTTP ? " wall and CPU" : " wall"}, no event lost: ${judged && lost === 0 ? "OK" : "OVER"}`;
    console.log(`  ${name.padEnd(30)} ${wall.toFixed(3)}x wall  ${cpu.toFixed(3)}x CPU  ${events}${target}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
