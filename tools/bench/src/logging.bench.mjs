// @evals/logging: the HTML report for 1,000 cases of 50 tool calls each (build time and file size),
// and the session tracker over a 100,000-event run with subagents. Each is printed beside a baseline
// measured in the same run (JSON.stringify of the same results; one bare pass over the events), so
// the ratios say what the work costs whatever the machine.
import { MAIN_AGENT, RunBuilder } from "@evals/core";
import { buildResults, buildSessionTree, caseResult, renderHtmlReport, SessionTracker } from "@evals/logging";
import { envCount } from "./bench-kit.mjs";

const CASES = envCount("BENCH_LOGGING_CASES", 1000);
const CALLS = envCount("BENCH_LOGGING_CALLS", 50);
const EVENTS = envCount("BENCH_LOGGING_EVENTS", 100_000);
const TOOLS = ["Read", "Grep", "Bash", "Edit", "Glob"];

function time(fn) {
  const start = process.hrtime.bigint();
  const value = fn();
  return { value, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

/** Best of `rounds`, so one GC pause does not decide the number. */
function best(rounds, fn) {
  let result;
  for (let i = 0; i < rounds; i++) {
    globalThis.gc?.();
    const run = time(fn);
    if (!result || run.ms < result.ms) result = run;
  }
  return result;
}

/** A run of `calls` tool calls (a call and its result each), with one subagent doing a fifth of them. */
function makeRun(n, calls) {
  const builder = new RunBuilder(["synthetic"]);
  builder.meta.model = "claude-sonnet-4-5";
  builder.meta.claude_version = "2.1.330";
  let t = Date.parse("2026-11-21T10:00:00Z") + n * 60_000;
  const at = () => new Date(t).toISOString();
  builder.push({
    type: "user_message",
    agent: MAIN_AGENT,
    text: `Case ${n}: refactor module ${n}`,
    timestamp: at(),
  });
  const childFrom = Math.floor(calls / 2);
  const childTo = childFrom + Math.floor(calls / 5);
  for (let i = 0; i < calls; i++) {
    const agent = i >= childFrom && i < childTo ? "sub1" : MAIN_AGENT;
    if (i === childFrom) {
      builder.push({
        type: "tool_call",
        agent: MAIN_AGENT,
        id: "agent-call",
        name: "Agent",
        input: { subagent_type: "Explore", prompt: "survey" },
        timestamp: at(),
      });
      builder.push({
        type: "subagent_start",
        agent: MAIN_AGENT,
        agent_id: "sub1",
        agent_type: "Explore",
        parent_tool_use_id: "agent-call",
        prompt: "survey",
      });
    }
    const name = TOOLS[i % TOOLS.length];
    const id = `toolu_${n}_${i}`;
    t += 40;
    builder.push({
      type: "tool_call",
      agent,
      id,
      name,
      input:
        name === "Bash"
          ? { command: `npm test -- --grep case-${n}-${i}` }
          : { file_path: `/home/dev/project/src/module-${i}.ts` },
      timestamp: at(),
    });
    t += 20 + ((n * 7 + i * 13) % 400);
    builder.push({
      type: "tool_result",
      agent,
      id,
      output: `result of call ${i} of case ${n}\n${"line\n".repeat(8)}`,
      is_error: i % 17 === 0,
      timestamp: at(),
    });
    if (i === childTo - 1) {
      builder.push({ type: "subagent_stop", agent: "sub1", agent_id: "sub1", last_message: "done" });
      builder.push({
        type: "tool_result",
        agent: MAIN_AGENT,
        id: "agent-call",
        output: "survey done",
        is_error: false,
        timestamp: at(),
      });
    }
  }
  builder.push({
    type: "final_result",
    agent: MAIN_AGENT,
    subtype: "success",
    is_error: false,
    num_turns: calls,
    total_cost_usd: 0.02,
  });
  return builder.build();
}

// ---- HTML report -------------------------------------------------------------------------------
const cases = Array.from({ length: CASES }, (_, n) => {
  const failing = n % 10 === 3;
  return caseResult({
    id: `case-${n}`,
    name: `case ${n}: refactors module ${n}`,
    suite: `suite ${n % 5}`,
    tags: [`area-${n % 7}`],
    trials: [
      {
        status: failing ? "failed" : "passed",
        scores: [{ scorer: "trajectory", score: failing ? 0.5 : 1, passed: !failing, threshold: 0.8 }],
        violations: failing
          ? [
              {
                rule: "read-before-write",
                type: "edit-without-read",
                severity: "error",
                message: "Edit without Read",
                pointer: { tool_use_id: `toolu_${n}_3` },
              },
            ]
          : [],
        duration_ms: 1000 + n,
        cost_usd: 0.02,
        run: makeRun(n, CALLS),
      },
    ],
  });
});
const results = buildResults(cases, { suite: "bench", env: {} });

const json = best(3, () => JSON.stringify(results));
const html = best(3, () => renderHtmlReport(results));
const htmlBytes = Buffer.byteLength(html.value);
const jsonBytes = Buffer.byteLength(json.value);
console.log(`HTML report, ${CASES.toLocaleString("en")} cases x ${CALLS} tool calls:`);
console.log(`  renderHtmlReport: ${html.ms.toFixed(0)} ms, ${(htmlBytes / 1e6).toFixed(1)} MB`);
console.log(
  `  baseline JSON.stringify of the same results: ${json.ms.toFixed(0)} ms, ${(jsonBytes / 1e6).toFixed(1)} MB`,
);
console.log(
  `  ratios: time ${(html.ms / json.ms).toFixed(1)}x the baseline, size ${(htmlBytes / jsonBytes).toFixed(2)}x (target: under 2 s and under 2x the JSON's size)`,
);
console.log(`  per case: ${(html.ms / CASES).toFixed(2)} ms, ${(htmlBytes / CASES / 1024).toFixed(1)} KB`);

// ---- session tracker ---------------------------------------------------------------------------
const bigRun = makeRun(0, Math.floor(EVENTS / 2));
const bare = best(5, () => {
  const perAgent = new Map();
  for (const event of bigRun.events)
    if (event.type === "tool_call") perAgent.set(event.agent, (perAgent.get(event.agent) ?? 0) + 1);
  return perAgent;
});
const tree = best(5, () => buildSessionTree(bigRun));
const live = best(5, () => {
  const tracker = new SessionTracker({ clock: Date.now });
  let changes = 0;
  for (const event of bigRun.events) changes += tracker.add(event).length;
  return changes;
});
const rate = (ms) => Math.round(bigRun.events.length / (ms / 1000)).toLocaleString("en");
console.log(
  `\nSession tracker, ${bigRun.events.length.toLocaleString("en")} events (${tree.value.totalSessions} sessions):`,
);
console.log(`  buildSessionTree: ${tree.ms.toFixed(1)} ms = ${rate(tree.ms)} events/s`);
console.log(
  `  live (add() per event, with its changes): ${live.ms.toFixed(1)} ms = ${rate(live.ms)} events/s`,
);
console.log(`  baseline bare count of tool calls per agent: ${bare.ms.toFixed(1)} ms`);
console.log(
  `  ratio: ${(tree.ms / bare.ms).toFixed(1)}x the bare pass (target: 100,000 events under 100 ms)`,
);

const smallRun = makeRun(0, Math.floor(EVENTS / 20));
const small = best(5, () => buildSessionTree(smallRun));
console.log(
  `  linearity: ${smallRun.events.length.toLocaleString("en")} events in ${small.ms.toFixed(1)} ms; 10x the events took ${(tree.ms / small.ms).toFixed(1)}x the time (target near 10)`,
);
