import { type Redactor, type Run, runSummary } from "@evals/core";
import type { CaseResult, TrialResult } from "@evals/logging";
import {
  type Attributes,
  type AttributeValue,
  type Context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { type AgentTurn, agentEvents, agentTurns } from "./agent-turns.js";
import { ANTHROPIC, GEN_AI, OPERATION } from "./attributes.js";
import { eventTimes } from "./event-times.js";

/** When the case ran: by default it ended now and each trial started when the case did. */
export interface CaseTiming {
  /** When the case ended (epoch ms; default: now). */
  endTime?: number;
  /** When each trial started (epoch ms), by trial index. */
  trialStartTimes?: readonly (number | undefined)[];
}

/** Longest text an attribute carries; longer ones are cut (tool results can be whole files). */
export const MAX_ATTRIBUTE_CHARS = 16_384;

/**
 * Records one case as a trace: a `case <name>` span, a `trial <n>` span per trial, and inside each
 * trial's run an `invoke_agent` span per agent (subagents under the tool call that started them), a
 * `chat` span per model turn and an `execute_tool` span per tool call, arguments and result redacted.
 */
export function recordCaseSpans(
  tracer: Tracer,
  result: CaseResult,
  redactor: Pick<Redactor, "text">,
  timing: CaseTiming = {},
): void {
  const end = timing.endTime ?? Date.now();
  const start = end - result.duration_ms;
  const caseSpan = tracer.startSpan(
    `case ${result.name}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: start,
      attributes: attributes({
        "evals.suite": result.suite,
        "evals.case.id": result.id,
        "evals.case.name": result.name,
        "evals.case.file": result.file,
        "evals.case.tags": result.tags.length > 0 ? result.tags : undefined,
        "evals.case.status": result.status,
        "evals.case.trials": result.trials.length,
        "evals.case.pass_rate": result.stats?.pass_rate,
        [GEN_AI.cost]: result.cost_usd,
      }),
    },
    ROOT_CONTEXT,
  );
  if (result.status !== "passed" && result.status !== "skipped") {
    caseSpan.setStatus({
      code: SpanStatusCode.ERROR,
      ...(result.error ? { message: redactor.text(result.error) } : {}),
    });
  }
  const caseContext = trace.setSpan(ROOT_CONTEXT, caseSpan);
  for (const trial of result.trials) {
    const trialStart = Math.max(start, timing.trialStartTimes?.[trial.trial] ?? start);
    const trialEnd = Math.min(end, trialStart + (trial.duration_ms ?? end - trialStart));
    recordTrial(tracer, trial, caseContext, redactor, trialStart, Math.max(trialStart, trialEnd));
  }
  caseSpan.end(end);
}

function recordTrial(
  tracer: Tracer,
  trial: TrialResult,
  parent: Context,
  redactor: Pick<Redactor, "text">,
  start: number,
  end: number,
): void {
  const span = tracer.startSpan(
    `trial ${trial.trial + 1}`,
    {
      startTime: start,
      attributes: attributes({
        "evals.trial.index": trial.trial,
        "evals.trial.status": trial.status,
        "evals.run.id": trial.run_id,
        "evals.run.origin": trial.origin,
        "evals.run.recorded_cost_usd": trial.recorded_cost_usd,
        "evals.trial.violations": trial.violations.length,
        [GEN_AI.cost]: trial.cost_usd,
        ...Object.fromEntries(trial.scores.map((score) => [`evals.score.${score.scorer}`, score.score])),
      }),
    },
    parent,
  );
  for (const score of trial.scores) {
    span.addEvent(
      GEN_AI.evaluationEvent,
      attributes({
        [GEN_AI.evaluationName]: score.scorer,
        [GEN_AI.evaluationScore]: score.score,
        [GEN_AI.evaluationLabel]: score.passed ? "pass" : "fail",
      }),
      end,
    );
  }
  if (trial.status === "failed" || trial.status === "error") {
    span.setStatus({
      code: SpanStatusCode.ERROR,
      ...(trial.error ? { message: redactor.text(trial.error) } : {}),
    });
  }
  if (trial.run) new RunSpans(tracer, trial.run, redactor, start, end).record(trace.setSpan(parent, span));
  span.end(end);
}

/** The spans of one run: its agents, their turns and tool calls. */
class RunSpans {
  private readonly times: number[];
  private readonly toolContexts = new Map<string, Context>();

  constructor(
    private readonly tracer: Tracer,
    private readonly run: Run,
    private readonly redactor: Pick<Redactor, "text">,
    private readonly start: number,
    private readonly end: number,
  ) {
    this.times = eventTimes(run.events, start, end);
  }

  record(parent: Context): void {
    this.recordAgent("main", parent);
  }

  private timeOf(index: number): number {
    return this.times[index] ?? this.end;
  }

  private recordAgent(agent: string, parent: Context): void {
    const info = this.run.agents.find((candidate) => candidate.id === agent);
    const type = agent === "main" ? "main" : (info?.type ?? "subagent");
    const events = agentEvents(this.run, agent);
    const first = events[0];
    const last = events[events.length - 1];
    const main = agent === "main";
    const summary = main ? runSummary(this.run) : undefined;
    const final = summary?.final;
    const span = this.tracer.startSpan(
      `${OPERATION.agent} ${type}`,
      {
        startTime: main || !first ? this.start : this.timeOf(first.index),
        attributes: attributes({
          [GEN_AI.operation]: OPERATION.agent,
          [GEN_AI.provider]: ANTHROPIC,
          [GEN_AI.agentName]: type,
          [GEN_AI.agentId]: agent,
          [GEN_AI.requestModel]: this.run.model,
          [GEN_AI.conversationId]: this.run.session_id,
          "evals.agent.cli": this.run.agent ?? "claude-code",
          "evals.agent.version": this.run.claude_version ?? this.run.agent_version,
          // Totals of the whole run (subagents included), as its result line says.
          [GEN_AI.inputTokens]: summary?.tokens?.input,
          [GEN_AI.outputTokens]: summary?.tokens?.output,
          [GEN_AI.cacheReadTokens]: summary?.tokens?.cache_read,
          [GEN_AI.cacheCreationTokens]: summary?.tokens?.cache_creation,
          [GEN_AI.cost]: summary?.cost_usd,
          [GEN_AI.finishReasons]: final?.stop_reason ? [final.stop_reason] : undefined,
          "evals.run.subtype": final?.subtype,
          "evals.run.turns": summary?.turns,
          [GEN_AI.outputMessages]:
            summary?.final_text !== undefined
              ? this.text(JSON.stringify([textMessage(summary.final_text)]))
              : undefined,
        }),
      },
      parent,
    );
    if (final?.is_error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: final.terminal_reason ?? final.subtype });
    }
    const context = trace.setSpan(parent, span);
    for (const [number, turn] of agentTurns(this.run, agent).entries()) {
      this.recordTurn(turn, number, context);
    }
    for (const child of this.run.agents.filter((candidate) => candidate.parent === agent)) {
      const under = (child.parent_tool_use_id && this.toolContexts.get(child.parent_tool_use_id)) || context;
      this.recordAgent(child.id, under);
    }
    span.end(main || !last ? this.end : this.timeOf(last.index));
  }

  private recordTurn(turn: AgentTurn, number: number, parent: Context): void {
    const model = this.run.model;
    const parts = [
      ...turn.texts.map((text) => ({ type: "text", content: text.text })),
      ...turn.calls.map((call) => ({
        type: "tool_call",
        id: call.id,
        name: call.name,
        arguments: call.input,
      })),
    ];
    const span = this.tracer.startSpan(
      model ? `${OPERATION.chat} ${model}` : OPERATION.chat,
      {
        kind: SpanKind.CLIENT,
        startTime: this.timeOf(turn.first),
        attributes: attributes({
          [GEN_AI.operation]: OPERATION.chat,
          [GEN_AI.provider]: ANTHROPIC,
          [GEN_AI.requestModel]: model,
          [GEN_AI.responseId]: turn.messageId,
          [GEN_AI.agentId]: turn.agent,
          "evals.turn.index": number,
          [GEN_AI.outputMessages]: this.text(JSON.stringify([{ role: "assistant", parts }])),
        }),
      },
      parent,
    );
    const context = trace.setSpan(parent, span);
    for (const call of turn.calls) {
      const result = turn.results.get(call.id);
      const tool = this.tracer.startSpan(
        `${OPERATION.tool} ${call.name}`,
        {
          startTime: this.timeOf(call.index),
          attributes: attributes({
            [GEN_AI.operation]: OPERATION.tool,
            [GEN_AI.toolName]: call.name,
            [GEN_AI.toolType]: "function",
            [GEN_AI.toolCallId]: call.id,
            [GEN_AI.toolArguments]: this.text(JSON.stringify(call.input)),
            [GEN_AI.toolResult]: result ? this.text(outputText(result.output)) : undefined,
            "evals.tool.is_error": result?.is_error,
          }),
        },
        context,
      );
      if (result?.is_error) {
        tool.setAttribute("error.type", "tool_error");
        tool.setStatus({
          code: SpanStatusCode.ERROR,
          message: this.text(result.error ?? outputText(result.output)),
        });
      }
      this.toolContexts.set(call.id, trace.setSpan(context, tool));
      tool.end(result ? this.timeOf(result.index) : this.timeOf(turn.last));
    }
    span.end(this.timeOf(turn.last));
  }

  /** Redacted, and cut to MAX_ATTRIBUTE_CHARS. */
  private text(value: string): string {
    const clean = this.redactor.text(value);
    return clean.length > MAX_ATTRIBUTE_CHARS ? `${clean.slice(0, MAX_ATTRIBUTE_CHARS)}…[truncated]` : clean;
  }
}

function textMessage(text: string) {
  return { role: "assistant", parts: [{ type: "text", content: text }] };
}

function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  return output === undefined ? "" : JSON.stringify(output);
}

/** Attributes without the undefined ones. */
function attributes(values: Record<string, AttributeValue | undefined>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = value;
  return out;
}
