import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import {
  type ArgsMatchMode,
  agentevalsVerdict,
  diagnoseTrajectory,
  fuzzyMatchers,
  type ToolArgsOverrides,
  type TrajectoryCall,
  trajectoryOf,
} from "../src/index.js";
import { AGENTEVALS_MODES } from "../src/trajectory/diagnose.js";

/** A small seeded generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  return { next, pick };
}

const TOOLS = {
  Read: () => ({ file_path: ["a.ts", "/repo/a.ts", "b.ts", "/repo/src/b.ts"] }),
  Grep: () => ({ pattern: ["TODO", "todo", "FIXME"], path: ["src", "/repo/src"] }),
  Bash: () => ({
    command: ["npm test", "cd /repo && npm test -- --run", "ls", "/^npm/"],
    description: ["run", "list"],
  }),
  Edit: () => ({ file_path: ["a.ts", "b.ts"], old_string: ["x", "y"], new_string: ["z"] }),
} as const;

type Random = ReturnType<typeof random>;

function randomCall(rng: Random): TrajectoryCall {
  const name = rng.pick(Object.keys(TOOLS) as (keyof typeof TOOLS)[]);
  const fields = TOOLS[name]();
  const args: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(fields)) if (rng.next() < 0.7) args[key] = rng.pick(values);
  return { name, args };
}

/** An expected trajectory derived from the actual one: sometimes equal, often slightly off. */
function mutate(rng: Random, actual: TrajectoryCall[]): TrajectoryCall[] {
  const expected = actual.map((call) => ({ name: call.name, args: { ...call.args } }));
  const edits = Math.floor(rng.next() * 3);
  for (let i = 0; i < edits; i++) {
    const what = rng.next();
    const at = Math.floor(rng.next() * (expected.length + 1));
    if (what < 0.25) expected.splice(at, 1);
    else if (what < 0.5) expected.splice(at, 0, randomCall(rng));
    else if (what < 0.7 && expected.length > 1) expected.reverse();
    else if (expected[at]) {
      const call = expected[at] as TrajectoryCall;
      const keys = Object.keys(call.args);
      if (keys.length > 0 && rng.next() < 0.5) delete call.args[rng.pick(keys)];
      else Object.assign(call.args, randomCall(rng).args);
    }
  }
  return expected;
}

const ARG_MODES: ArgsMatchMode[] = ["exact", "ignore", "subset", "superset"];

/** OpenAI messages built here, independently of the adapter: one per message_id, in order. */
function asMessages(calls: TrajectoryCall[]) {
  const messages: { role: "assistant"; content: string; tool_calls: unknown[] }[] = [];
  let last: string | undefined;
  calls.forEach((call, k) => {
    const toolCall = {
      id: `c${k}`,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.args) },
    };
    if (call.message_id !== undefined && call.message_id === last) messages.at(-1)?.tool_calls.push(toolCall);
    else messages.push({ role: "assistant", content: "", tool_calls: [toolCall] });
    last = call.message_id;
  });
  return messages;
}

/** agentevals itself, on messages. */
async function agentevalsOnMessages(
  outputs: unknown[],
  referenceOutputs: unknown[],
  argsMode: ArgsMatchMode,
) {
  const { createTrajectoryMatchEvaluator } = await import("agentevals");
  const evaluator = createTrajectoryMatchEvaluator({
    trajectoryMatchMode: "strict",
    toolArgsMatchMode: argsMode,
  });
  const result = await evaluator({ outputs: outputs as never, referenceOutputs: referenceOutputs as never });
  return (result as { score: unknown }).score === true;
}

function overridesFor(kind: string, argsMode: ArgsMatchMode): ToolArgsOverrides | undefined {
  if (kind === "fuzzy") return fuzzyMatchers({ cwd: "/repo", argsMode });
  if (kind === "keys") return { Edit: ["file_path"], Grep: ["pattern"] };
  if (kind === "modes") return { Bash: "ignore", Read: "exact" };
  return undefined;
}

describe("our verdicts equal agentevals' createTrajectoryMatchEvaluator", () => {
  for (const mode of AGENTEVALS_MODES) {
    it(`on random trajectories in ${mode} mode, for every argument mode, with and without overrides`, async () => {
      const rng = random(AGENTEVALS_MODES.indexOf(mode) + 1);
      const outcomes = { true: 0, false: 0 };
      for (const argsMode of ARG_MODES) {
        for (const kind of ["none", "fuzzy", "keys", "modes"]) {
          const overrides = overridesFor(kind, argsMode);
          for (let round = 0; round < 25; round++) {
            const actual = Array.from({ length: Math.floor(rng.next() * 5) }, () => randomCall(rng));
            const expected = mutate(rng, actual);
            const ours = diagnoseTrajectory(actual, expected, { mode, argsMode, overrides }).passed;
            const theirs = await agentevalsVerdict(actual, expected, { mode, argsMode, overrides });
            const context = JSON.stringify({ mode, argsMode, kind, actual, expected });
            expect(ours, context).toBe(theirs);
            outcomes[String(theirs) as "true" | "false"]++;
          }
        }
      }
      // The trajectories exercise both verdicts.
      expect(outcomes.true).toBeGreaterThan(20);
      expect(outcomes.false).toBeGreaterThan(20);
    });
  }

  it("with parallel calls (several calls in one model message) in strict mode", async () => {
    const rng = random(99);
    const outcomes = { true: 0, false: 0 };
    /** Puts consecutive calls into one model message at random, as agentevals' messages do. */
    const group = (calls: TrajectoryCall[], prefix: string) => {
      let message = 0;
      return calls.map((call, k) => {
        if (k === 0 || rng.next() < 0.6) message++;
        return { ...call, message_id: `${prefix}${message}` };
      });
    };
    for (const argsMode of ARG_MODES) {
      for (let round = 0; round < 60; round++) {
        const actual = group(
          Array.from({ length: 1 + Math.floor(rng.next() * 4) }, () => randomCall(rng)),
          "a",
        );
        // Same calls, often the same groups, sometimes reordered inside a group or regrouped.
        const base = rng.next() < 0.3 ? mutate(rng, actual) : actual.map((call) => ({ ...call }));
        const expected = rng.next() < 0.5 ? base : group(base, "e");
        if (rng.next() < 0.3) expected.reverse();
        const settings = { mode: "strict" as const, argsMode };
        const ours = diagnoseTrajectory(actual, expected, settings).passed;
        const theirs = await agentevalsOnMessages(asMessages(actual), asMessages(expected), argsMode);
        expect(await agentevalsVerdict(actual, expected, settings)).toBe(theirs);
        expect(ours, JSON.stringify({ argsMode, actual, expected })).toBe(theirs);
        outcomes[String(theirs) as "true" | "false"]++;
      }
    }
    expect(outcomes.true).toBeGreaterThan(10);
    expect(outcomes.false).toBeGreaterThan(10);
  });

  it("on the real runs' trajectories", async () => {
    const multi = trajectoryOf(fixtureRun("multi-tool"));
    const sub = trajectoryOf(fixtureRun("subagent"));
    // The rules run made two Bash calls in one model message.
    const rules = trajectoryOf(fixtureRun("rules"));
    const cases: [TrajectoryCall[], TrajectoryCall[]][] = [
      [multi, multi],
      [multi, multi.slice(0, 3)],
      [multi.slice(1), multi],
      [multi, [...multi].reverse()],
      [sub, sub],
      [sub, multi],
      [rules, rules],
      [rules, rules.map(({ message_id: _, ...call }) => call)],
      [rules, [rules[1], rules[0], ...rules.slice(2)] as TrajectoryCall[]],
    ];
    for (const mode of AGENTEVALS_MODES) {
      for (const argsMode of ARG_MODES) {
        for (const [actual, expected] of cases) {
          const overrides = fuzzyMatchers({ cwd: "/home/dev/project", argsMode });
          for (const settings of [
            { mode, argsMode },
            { mode, argsMode, overrides },
          ]) {
            expect(diagnoseTrajectory(actual, expected, settings).passed).toBe(
              await agentevalsVerdict(actual, expected, settings),
            );
          }
        }
      }
    }
  });
});
