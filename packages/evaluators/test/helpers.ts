import { type EvaluatorResult, MAIN_AGENT, type Run, RunBuilder, type RunEventInput } from "@evals/core";
import { newRuleContext, type RuleOutcome, resultOf, type VisitContext } from "../src/define-rule.js";
import type { RuleOptionsBase } from "../src/evaluator.js";
import { type RunSoFar, RunStreamVisit, type RunVisitor } from "../src/run-visit.js";

/** An event without the fields the script fills in (distributed over the event union). */
type EventBody = RunEventInput extends infer E
  ? E extends RunEventInput
    ? Omit<E, "agent" | "timestamp">
    : never
  : never;

interface CallOutcome {
  /** The tool's output (default "ok"). */
  output?: unknown;
  /** The call failed with this error. */
  error?: string;
  /** Claude Code asked for permission first. */
  permission?: boolean;
  /** A permission denial stopped it. */
  denied?: boolean;
  /** No result (interrupted, or the run ended). */
  incomplete?: boolean;
  durationMs?: number;
}

/**
 * Writes synthetic runs the way they would happen: `script().prompt("fix it").text("Let me look")
 * .call("Read", { file_path: "a.ts" }).build()`. Ids are toolu_1, toolu_2, ...; timestamps advance
 * one second per event.
 */
export class RunScript {
  private readonly builder = new RunBuilder(["synthetic"]);
  private ids = 0;
  private clock = Date.parse("2026-01-01T00:00:00.000Z");
  private agent: string = MAIN_AGENT;

  constructor(cwd = "/repo") {
    this.builder.meta.cwd = cwd;
    this.builder.meta.id = "synthetic";
  }

  private push(event: EventBody, agent = this.agent): this {
    this.clock += 1000;
    this.builder.push({ ...event, agent, timestamp: new Date(this.clock).toISOString() } as RunEventInput);
    return this;
  }

  prompt(text: string): this {
    return this.push({ type: "user_message", text }, MAIN_AGENT);
  }

  text(text: string): this {
    return this.push({ type: "assistant_text", text, message_id: `msg_${this.ids + 1}_${this.clock}` });
  }

  /** A tool call and what became of it. Returns the script; the call's id is `lastId`. */
  call(name: string, input: Record<string, unknown>, outcome: CallOutcome = {}): this {
    const id = `toolu_${++this.ids}`;
    this.lastId = id;
    this.push({ type: "tool_call", id, name, input });
    if (outcome.permission || outcome.denied)
      this.push({ type: "permission_request", id, tool_name: name, input });
    if (outcome.denied) {
      this.push({ type: "permission_denied", id, tool_name: name, message: "denied" });
      return this.push({
        type: "tool_result",
        id,
        output: "denied",
        is_error: true,
        error: "Permission denied",
      });
    }
    if (outcome.incomplete) return this;
    return this.push({
      type: "tool_result",
      id,
      output: outcome.error ?? outcome.output ?? "ok",
      is_error: outcome.error !== undefined,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      ...(outcome.durationMs !== undefined ? { duration_ms: outcome.durationMs } : {}),
    });
  }

  lastId = "";

  /** Delegates through an Agent call; `work` writes what the subagent does. */
  subagent(type: string, work: (script: this) => void, agentId = `agent_${type}_${this.ids + 1}`): this {
    const id = `toolu_${++this.ids}`;
    this.push({
      type: "tool_call",
      id,
      name: "Agent",
      input: { subagent_type: type, prompt: `do the ${type} part`, description: type },
    });
    this.builder.agent({ id: agentId, type, parent: this.agent, parent_tool_use_id: id });
    this.push({ type: "subagent_start", agent_id: agentId, agent_type: type, parent_tool_use_id: id });
    const parent = this.agent;
    this.agent = agentId;
    work(this);
    this.agent = parent;
    this.push(
      { type: "subagent_stop", agent_id: agentId, agent_type: type, last_message: `${type} done` },
      agentId,
    );
    return this.push({ type: "tool_result", id, output: `${type} done`, is_error: false });
  }

  final(result: string, extra: Record<string, unknown> = {}): this {
    return this.push(
      { type: "final_result", subtype: "success", is_error: false, result, ...extra },
      MAIN_AGENT,
    );
  }

  build(): Run {
    return this.builder.build();
  }
}

export function script(cwd?: string): RunScript {
  return new RunScript(cwd);
}

/** The violation types of a result, in order. */
export function types(result: { violations: { type: string }[] }): string[] {
  return result.violations.map((item) => item.type);
}

/**
 * A rule's result when it grades the run while it is read (RunStreamVisit, as `evals grade` of a
 * stream-json file does): compare with `rule.check(run, options)`, which visits the run in memory.
 * Undefined when a fact came too late to grade the run so.
 */
export function streamedCheck<Options>(
  rule: { id: string; visit?: (options: Options, context: VisitContext) => RunVisitor<RuleOutcome> },
  run: Run,
  options: Options = {} as Options,
): EvaluatorResult | undefined {
  const visit = rule.visit;
  if (!visit) throw new Error(`rule ${rule.id} does not visit`);
  let context: ReturnType<typeof newRuleContext<RunSoFar>> | undefined;
  const stream = new RunStreamVisit((soFar) => {
    context = newRuleContext(rule.id, options as RuleOptionsBase, soFar);
    return [visit(options, context)];
  });
  Object.assign(
    stream.meta,
    Object.fromEntries(
      Object.entries(run).filter(
        ([key]) => !["events", "agents", "notes", "sources", "version"].includes(key),
      ),
    ),
  );
  for (const agent of run.agents) stream.agent(agent);
  for (const { index: _index, ...event } of run.events) stream.push(event as RunEventInput);
  const [outcome] = stream.end() as RuleOutcome[];
  if (!stream.exact || !context || !outcome) return undefined;
  return resultOf(rule.id, context, outcome);
}
