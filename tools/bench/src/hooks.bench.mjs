// @evals/hooks: the wall time of one capture-hook call (spawn node, read the event on stdin,
// append to events.jsonl and tool-calls.jsonl, exit) against a bare `node -e 0` spawned the same
// way, interleaved in one run. Target: median hook call at most 1.25x the bare Node start.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hookBinPath, readEvents, runDirFor } from "@evals/hooks";

const calls = Math.max(200, Number(process.env.BENCH_HOOK_CALLS ?? 200));
const warmup = 10;
const root = mkdtempSync(join(tmpdir(), "evals-bench-hooks-"));
const bin = hookBinPath();

// A real payload: the PostToolUse of a Read (file content included) from the 2.1.330 fixtures.
const fixture = new URL("../../../fixtures/claude-code-2.1.330/multi-tool/hooks.jsonl", import.meta.url);
const payload = readFileSync(fixture, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line).input)
  .find((input) => input.hook_event_name === "PostToolUse" && input.tool_name === "Read");
const input = JSON.stringify(payload);

const baseEnv = { PATH: process.env.PATH, FORCE_COLOR: "0" };
const variants = {
  "node -e 0": { args: ["-e", "0"], env: baseEnv },
  "evals-hook (capturing)": {
    args: [bin],
    env: { ...baseEnv, TEST_MODE: "true", TEST_RUN_ID: "bench", EVALS_OUTPUT_DIR: root },
  },
  "evals-hook (TEST_MODE unset)": { args: [bin], env: baseEnv },
};

function once({ args, env }) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { input, env, stdio: ["pipe", "pipe", "pipe"] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0 || result.stdout.length > 0)
    throw new Error(`${args.join(" ")} failed: ${result.stderr}`);
  return ms;
}

const names = Object.keys(variants);
const times = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < warmup + calls; round++) {
  // Rotate the order every round so no variant always runs right after another.
  for (let k = 0; k < names.length; k++) {
    const name = names[(round + k) % names.length];
    const ms = once(variants[name]);
    if (round >= warmup) times[name].push(ms);
  }
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const captured = await readEvents(runDirFor("bench", { root }));
if (captured.length !== warmup + calls)
  throw new Error(`expected ${warmup + calls} captured events, got ${captured.length}`);

console.log(`${calls} calls each, interleaved; payload ${input.length} bytes (PostToolUse of Read)`);
for (const name of names) {
  console.log(
    `${name.padEnd(30)} median ${quantile(times[name], 0.5).toFixed(1)} ms   p90 ${quantile(times[name], 0.9).toFixed(1)} ms`,
  );
}
const bare = quantile(times["node -e 0"], 0.5);
const ratio = quantile(times["evals-hook (capturing)"], 0.5) / bare;
const idle = quantile(times["evals-hook (TEST_MODE unset)"], 0.5) / bare;
console.log(
  `hook call / bare node start: ${ratio.toFixed(2)}x (target <= 1.25x): ${ratio <= 1.25 ? "OK" : "OVER"}`,
);
console.log(`inactive hook / bare node start: ${idle.toFixed(2)}x`);
rmSync(root, { recursive: true, force: true });
