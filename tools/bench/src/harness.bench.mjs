// @evals/claude-code: the wall time of runAgent against the bare `claude -p` command on the same
// scripted run (Bash, Read, then an answer), measured side by side and interleaved, medians of
// BENCH_HARNESS_RUNS rounds (default 5). Target: runAgent / bare <= 1.10.
//
// Two pairs, so each compares like with like:
//  A. capture off: runAgent({ capture: false }) vs `claude -p ... --output-format stream-json --verbose`;
//  B. capture on:  runAgent() vs the same bare command with the same capture-hook settings file.
// Both bare commands get a fresh HOME / CLAUDE_CONFIG_DIR / TMPDIR, as runAgent gives the CLI.
// What the capture hooks themselves cost (B against A) is printed for information.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent } from "@evals/claude-code";
import { writeHookSettings } from "@evals/hooks";
import { startModelServer } from "@evals/vcr";
import {
  bareClaude,
  childCpuMs,
  CLAUDE_BIN as claudeBin,
  envCount,
  listThenRead,
  median,
  ms,
  LIST_THEN_READ as PROMPT,
} from "./bench-kit.mjs";

const rounds = envCount("BENCH_HARNESS_RUNS", 5);
const work = mkdtempSync(join(tmpdir(), "evals-bench-harness-"));
const project = join(work, "project");
mkdirSync(project);
writeFileSync(join(project, "a.txt"), "hello\n");
const outputRoot = join(work, "out");
const hookSettingsFile = writeHookSettings(join(work, "hook-settings.json"));

const model = () => listThenRead(project);

/** The bare command, hermetic like runAgent's (a fresh home), its stdout read to the end. */
async function bare(server, { capture }) {
  const runId = `bare-${Date.now().toString(36)}-${Math.random().toString(16).slice(2, 8)}`;
  const {
    code,
    stdout,
    ms: elapsed,
  } = await bareClaude({
    work,
    cwd: project,
    prompt: PROMPT,
    baseUrl: server.url,
    args: capture ? ["--settings", hookSettingsFile] : [],
    env: capture ? { TEST_MODE: "true", TEST_RUN_ID: runId, EVALS_OUTPUT_DIR: outputRoot } : {},
  });
  if (code !== 0 || !stdout.includes('"type":"result"')) throw new Error(`bare claude failed (exit ${code})`);
  return elapsed;
}

/** runAgent's own work (before the spawn and after the exit), per run, from its timings. */
const ownWork = { false: [], true: [] };

async function harness(server, { capture }) {
  const started = performance.now();
  const result = await runAgent({
    prompt: PROMPT,
    claudeBin,
    baseUrl: server.url,
    cwd: project,
    outputRoot,
    capture,
  });
  const elapsed = performance.now() - started;
  if (result.error) throw new Error(`runAgent failed: ${result.error}`);
  ownWork[capture].push({
    own: result.timings.setup_ms + result.timings.finish_ms,
    cli: result.timings.cli_ms,
  });
  const tools = result.run.events.filter((event) => event.type === "tool_call").map((event) => event.name);
  if (tools.join(",") !== "Bash,Read") throw new Error(`unexpected tool calls: ${tools}`);
  return elapsed;
}

const variants = {
  "bare claude -p": (server) => bare(server, { capture: false }),
  "runAgent, capture off": (server) => harness(server, { capture: false }),
  "bare claude -p + capture hooks": (server) => bare(server, { capture: true }),
  "runAgent (capture on)": (server) => harness(server, { capture: true }),
};
const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
const cpu = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));

try {
  // One warm-up of each (file cache, first start of the binary), not counted.
  const names = Object.keys(variants);
  for (let round = -1; round < rounds; round++) {
    // Interleaved, and the order rotates every round so no variant always runs first.
    const order = names.map((_, i) => names[(i + Math.max(round, 0)) % names.length]);
    for (const name of order) {
      const server = await startModelServer({ source: model() });
      try {
        const cpuBefore = childCpuMs();
        const elapsed = await variants[name](server);
        const cpuAfter = childCpuMs();
        if (round >= 0) {
          times[name].push(elapsed);
          if (cpuBefore !== undefined) cpu[name].push(cpuAfter - cpuBefore);
        }
      } finally {
        await server.close();
      }
    }
  }
  console.log(`the same scripted run (Bash, Read, answer), ${rounds} interleaved rounds, medians:`);
  for (const [name, values] of Object.entries(times)) {
    const cpuNote = cpu[name].length > 0 ? `   CPU ${ms(median(cpu[name])).padStart(8)}` : "";
    console.log(
      `  ${name.padEnd(32)} ${ms(median(values)).padStart(8)}${cpuNote}   (wall: ${values.map((v) => v.toFixed(0)).join(", ")})`,
    );
  }
  const ratio = (a, b) => median(times[a]) / median(times[b]);
  const off = ratio("runAgent, capture off", "bare claude -p");
  const on = ratio("runAgent (capture on)", "bare claude -p + capture hooks");
  const verdict = (value) => (value <= 1.1 ? "OK" : "OVER");
  console.log(`runAgent / bare, capture off:            ${off.toFixed(3)} (target <= 1.10): ${verdict(off)}`);
  console.log(`runAgent / bare, both with capture hooks: ${on.toFixed(3)} (target <= 1.10): ${verdict(on)}`);
  if (cpu["bare claude -p"].length > 0) {
    const cpuRatio = (a, b) => median(cpu[a]) / median(cpu[b]);
    console.log(
      `CPU time of the CLI's process tree, runAgent / bare: ${cpuRatio("runAgent, capture off", "bare claude -p").toFixed(3)} capture off, ${cpuRatio("runAgent (capture on)", "bare claude -p + capture hooks").toFixed(3)} capture on`,
    );
  }
  for (const capture of [false, true]) {
    const own = median(ownWork[capture].map((run) => run.own));
    const cli = median(ownWork[capture].map((run) => run.cli));
    console.log(
      `runAgent's own work, capture ${capture ? "on " : "off"}: ${ms(own)} before spawn + after exit (${((own / cli) * 100).toFixed(1)}% of the CLI's ${ms(cli)})`,
    );
  }
  console.log(
    `for information, what the capture hooks cost: ${ratio("runAgent (capture on)", "runAgent, capture off").toFixed(3)}x a run without them`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
