// @evals/evaluators: every built-in evaluator over generated runs of 1,000, 10,000 and 100,000 tool
// calls, and evaluate() with all of them at once. Targets: 10,000 calls in under 1 s, and time
// growing linearly (the 100k / 10k ratio near 10).
import { RunBuilder } from "@evals/core";
import {
  approvalGate,
  behavior,
  cleanupConfirmation,
  contextLoading,
  delegation,
  evaluate,
  executionBalance,
  forbiddenCommands,
  indexRun,
  loadAgentevals,
  performanceMetrics,
  readBeforeWrite,
  stopOnFailure,
  toolUsage,
  trajectoryMatch,
} from "@evals/evaluators";
import { envCount, envCounts } from "./bench-kit.mjs";

const SIZES = envCounts("BENCH_EVALUATOR_SIZES", [1_000, 10_000, 100_000]);
const REPEATS = envCount("BENCH_EVALUATOR_REPEATS", 3);

/** A long, varied session: reads, edits, Bash (read-only, building, failing, destructive, antipatterns), subagents. */
function generateRun(calls) {
  const builder = new RunBuilder(["synthetic"]);
  builder.meta.cwd = "/repo";
  builder.meta.id = `bench-${calls}`;
  let clock = Date.parse("2026-01-01T00:00:00.000Z");
  let made = 0;
  let agent = "main";
  let subagents = 0;
  const push = (event) => {
    clock += 37;
    builder.push({ ...event, agent: event.agent ?? agent, timestamp: new Date(clock).toISOString() });
  };
  const call = (name, input, outcome = {}) => {
    const id = `toolu_${(made++).toString(36)}`;
    push({ type: "tool_call", id, name, input });
    if (outcome.permission) push({ type: "permission_request", id, tool_name: name, input });
    push({
      type: "tool_result",
      id,
      output: outcome.error ?? outcome.output ?? "ok",
      is_error: outcome.error !== undefined,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      duration_ms: 5 + (made % 40),
    });
    return id;
  };
  push({ type: "user_message", agent: "main", text: "Refactor the services and keep the tests green." });
  let step = 0;
  while (made < calls) {
    const file = `/repo/src/module-${step % 500}/file-${step % 37}.ts`;
    switch (step % 20) {
      case 0:
        push({
          type: "assistant_text",
          text: `Step ${step}: looking at ${file}. Shall I proceed?`,
          message_id: `msg_${step}`,
        });
        call("Read", { file_path: "/repo/CLAUDE.md" });
        break;
      case 1:
      case 2:
        call("Read", { file_path: file });
        break;
      case 3:
        call("Grep", { pattern: `TODO|FIXME-${step % 11}`, path: "/repo/src" });
        break;
      case 4:
        call("Glob", { pattern: `src/module-${step % 500}/**/*.ts` });
        break;
      case 5:
      case 6:
        call("Edit", { file_path: file, old_string: "a", new_string: "b" }, { permission: step % 3 === 0 });
        break;
      case 7:
        call("Bash", { command: `git status && git diff -- ${file}` });
        break;
      case 8:
        call(
          "Bash",
          { command: `cd /repo && npm test -- --run src/module-${step % 500}` },
          step % 60 === 8 ? { error: "Exit code 1\n1 failing" } : {},
        );
        break;
      case 9:
        call("Bash", { command: `cat ${file} | grep export` });
        break;
      case 10:
        call("Bash", { command: `grep -rn "useState" src/module-${step % 500}` });
        break;
      case 11:
        call(
          "Write",
          { file_path: `/repo/tmp/out-${step}.json`, content: "{}" },
          { output: { type: "create" } },
        );
        break;
      case 12:
        call("Bash", { command: `rm -rf /repo/tmp/out-${step - 1}.json build-${step}` });
        break;
      case 13:
        call("TodoWrite", { todos: [{ content: `step ${step}`, status: "in_progress" }] });
        break;
      case 14: {
        if (agent === "main" && made + 6 < calls) {
          const id = call("Agent", {
            subagent_type: "general-purpose",
            prompt: `Handle module ${step % 500}`,
            description: "module",
          });
          const child = `agent_${subagents++}`;
          builder.agent({ id: child, type: "general-purpose", parent: "main", parent_tool_use_id: id });
          push({
            type: "subagent_start",
            agent: "main",
            agent_id: child,
            agent_type: "general-purpose",
            parent_tool_use_id: id,
          });
          agent = child;
        } else call("Read", { file_path: file });
        break;
      }
      case 18:
        if (agent !== "main") {
          push({ type: "subagent_stop", agent, agent_id: agent, last_message: "module done" });
          agent = "main";
        }
        call("Bash", { command: "ls -la /repo/src" });
        break;
      default:
        call("Read", { file_path: file, offset: step % 100, limit: 50 });
    }
    step++;
  }
  if (agent !== "main") push({ type: "subagent_stop", agent, agent_id: agent, last_message: "done" });
  push({
    type: "assistant_text",
    agent: "main",
    text: "All modules refactored; tests pass.",
    message_id: "msg_end",
  });
  push({
    type: "final_result",
    agent: "main",
    subtype: "success",
    is_error: false,
    num_turns: Math.ceil(calls / 3),
    total_cost_usd: calls / 1000,
    result: "All modules refactored; tests pass.",
  });
  return builder.build();
}

const expectedCalls = [
  { tool: "Read", args: { file_path: "CLAUDE.md" } },
  { tool: "Grep", args: { pattern: "todo" } },
  { tool: "Glob", args: { pattern: "src/**/*.ts" } },
  { tool: "Edit", args: { file_path: "src/module-5/file-5.ts" } },
  { tool: "Bash", args: { command: "npm test" } },
  "Agent",
  "TodoWrite",
  { tool: "Write", args: { file_path: "tmp/*.json" } },
];

const evalCase = {
  id: "bench",
  prompt: "Refactor the services and keep the tests green.",
  agent: { options: { permissionMode: "acceptEdits" } },
  behavior: {
    mustUseTools: ["Read", "Edit"],
    mustNotUseTools: ["WebFetch"],
    shouldDelegate: true,
    expectedResponse: { contains: "tests pass" },
  },
  expectedTrajectory: { mode: "superset", calls: expectedCalls },
  rules: { "forbidden-commands": { patterns: ["git push --force", "/curl .*\\| *sh/"] } },
};

const evaluators = {
  "approval-gate": (run) => approvalGate(run, { permissionMode: "acceptEdits" }),
  "context-loading": (run) => contextLoading(run, { expectedContextFiles: ["CLAUDE.md", "docs/*.md"] }),
  "execution-balance": (run) => executionBalance(run),
  "tool-usage": (run) => toolUsage(run),
  behavior: (run) => behavior(run, evalCase.behavior),
  delegation: (run) => delegation(run),
  "stop-on-failure": (run) => stopOnFailure(run),
  "cleanup-confirmation": (run) => cleanupConfirmation(run),
  "read-before-write": (run) => readBeforeWrite(run),
  "forbidden-commands": (run) => forbiddenCommands(run, evalCase.rules["forbidden-commands"]),
  "performance-metrics": (run) => performanceMetrics(run),
  "trajectory (superset, fuzzy, agentevals)": (run) => trajectoryMatch(run, { expected: expectedCalls }),
  "trajectory (strict, diagnostics)": (run) =>
    trajectoryMatch(run, { mode: "strict", expected: expectedCalls }),
  "trajectory (unordered, exact args)": (run) =>
    trajectoryMatch(run, { mode: "unordered", argsMode: "exact", fuzzy: false, expected: expectedCalls }),
};

/**
 * The fastest of REPEATS runs of fn(input), in wall time and in CPU time (this process's user +
 * system time: on a machine shared with other jobs, wall time also measures them).
 * `prepare()` (untimed) gives each run its input.
 */
async function best(fn, prepare = () => undefined) {
  let wall = Number.POSITIVE_INFINITY;
  let cpu = Number.POSITIVE_INFINITY;
  let last;
  for (let i = 0; i < REPEATS; i++) {
    const input = prepare();
    globalThis.gc?.();
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    last = await fn(input);
    wall = Math.min(wall, Number(process.hrtime.bigint() - start) / 1e6);
    const used = process.cpuUsage(cpuStart);
    cpu = Math.min(cpu, (used.user + used.system) / 1000);
  }
  return { wall, cpu, last };
}

await loadAgentevals(); // its import (~1 s) is a one-off, not part of any evaluation
// Warm up: let the JIT compile every evaluator before anything is measured.
for (let round = 0; round < 2; round++) {
  const warm = generateRun(SIZES[0] * 2);
  for (const fn of Object.values(evaluators)) await fn(warm);
  await evaluate(generateRun(SIZES[0] * 2), evalCase);
}
const times = {};
const EVERYTHING = "evaluate(): everything, from a fresh run";
for (const size of SIZES) {
  const run = generateRun(size);
  const record = (name, measured) => {
    times[name] ??= {};
    times[name][size] = measured;
  };
  // The shared index (listToolCalls and a few maps) is built once per run; measured on its own.
  record(
    "index (shared by all)",
    await best(
      (fresh) => indexRun(fresh),
      () => structuredClone(run),
    ),
  );
  indexRun(run);
  for (const [name, fn] of Object.entries(evaluators)) record(name, await best(() => fn(run)));
  const all = await best(
    (fresh) => evaluate(fresh, evalCase),
    () => structuredClone(run),
  );
  record(EVERYTHING, all);
  if (size === SIZES[SIZES.length - 1]) {
    console.log(
      `sanity at ${size.toLocaleString("en")} calls: evaluate passed=${all.last.passed}, ${all.last.reasons.length} reasons`,
    );
  }
}

const mid = SIZES[SIZES.length - 2] ?? SIZES[0];
const large = SIZES[SIZES.length - 1];
const width = Math.max(...Object.keys(times).map((name) => name.length));
const cell = (measured) =>
  (measured === undefined ? "-" : `${measured.wall.toFixed(0)} (${measured.cpu.toFixed(0)})`).padStart(15);
console.log(`\ntimes in ms, wall (cpu), best of ${REPEATS}`);
console.log(
  `${"evaluator".padEnd(width)}  ${SIZES.map((size) => `${size.toLocaleString("en")} calls`.padStart(15)).join("  ")}  ${large / mid}x calls: time x (cpu x)`,
);
for (const [name, bySize] of Object.entries(times)) {
  const wallRatio = bySize[large].wall / bySize[mid].wall;
  const cpuRatio = bySize[large].cpu / bySize[mid].cpu;
  console.log(
    `${name.padEnd(width)}  ${SIZES.map((size) => cell(bySize[size])).join("  ")}  ${wallRatio.toFixed(1).padStart(6)} (${cpuRatio.toFixed(1)})`,
  );
}
const everything = times[EVERYTHING];
const atMid = everything[mid];
console.log(
  `\nevaluate() over ${mid.toLocaleString("en")} calls: ${atMid.wall.toFixed(0)} ms wall, ${atMid.cpu.toFixed(0)} ms cpu (target < 1000 ms): ${atMid.wall < 1000 ? "OK" : atMid.cpu < 1000 ? "OK on cpu time (the machine is busy)" : "OVER"}`,
);
const ratio = everything[large].cpu / everything[mid].cpu;
console.log(
  `evaluate() ${large.toLocaleString("en")} / ${mid.toLocaleString("en")} calls: cpu time x${ratio.toFixed(1)}, wall x${(everything[large].wall / atMid.wall).toFixed(1)} (linear = x${large / mid}): ${ratio < (large / mid) * 1.5 ? "linear" : "SUPERLINEAR"}`,
);
