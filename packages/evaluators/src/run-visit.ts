import {
  type AgentInfo,
  type FinalResultEvent,
  MAIN_AGENT,
  mergeAgent,
  PendingMap,
  type Run,
  RunBuilder,
  type RunEvent,
  type RunEventInput,
  type RunMeta,
  type RunNote,
  type RunSink,
  type ToolCallView,
  type ToolResultEvent,
} from "@evals/core";
import { HashedIds } from "./hashed-ids.js";
import { indexRun, kindOf } from "./run-index.js";
import { type CallKind, callKind } from "./tools.js";

/**
 * What a visiting rule knows of the run while it is being read. `blocked` holds a call's denial by the
 * time the call is visited; `finalResult` is the last result line read so far (whole in `end`).
 */
export interface RunSoFar {
  /** The run's working folder (paths are resolved against it). */
  cwd: string | undefined;
  /** The run's facts read so far (id, model, tools, skills, instructions...): whole in `end`. */
  meta: Readonly<RunMeta>;
  /** Agent id -> its parent agent id (main has none); an agent is known before its first event. */
  parentOf: Map<string, string | undefined>;
  /** Agent id -> its type ("main", "general-purpose", ...). */
  typeOf: Map<string, string>;
  /** Agent id -> what is known of it (e.g. the call that started it), in the order agents were met. */
  agents: ReadonlyMap<string, AgentInfo>;
  /** Ids of calls that a permission denial or a PreToolUse hook stopped before they ran. */
  blocked: Set<string>;
  /** The last result line read so far: whole in `end`. */
  finalResult: FinalResultEvent | undefined;
  /** callKind of a call, worked out once however many rules ask. */
  kindOf(call: ToolCallView): CallKind;
}

/**
 * A rule that grades a run while it is read, keeping only what it needs: it is handed every event in
 * order, and every tool call (with its result and status) right after its tool_call event, then `end`.
 * A tool_call event is handed on once its result is known, so the events after it wait until then.
 */
export interface RunVisitor<Outcome = unknown> {
  event?(event: RunEvent): void;
  call?(call: ToolCallView): void;
  end(): Outcome;
}

/** Visits an in-memory run: its events in order, each call after its tool_call event, then `end`. */
export function visitRun(run: Run, makeVisitors: (soFar: RunSoFar) => RunVisitor[]): unknown[] {
  const index = indexRun(run);
  const soFar: RunSoFar = {
    cwd: run.cwd,
    meta: run,
    parentOf: index.parentOf,
    typeOf: index.typeOf,
    agents: new Map(run.agents.map((agent) => [agent.id, agent])),
    blocked: index.blocked,
    finalResult: undefined,
    kindOf: (call) => kindOf(index, call),
  };
  const visitors = makeVisitors(soFar);
  const handle = handlersOf(visitors);
  let position = 0;
  for (const event of run.events) {
    if (event.type === "final_result") soFar.finalResult = event;
    for (const onEvent of handle.event) onEvent(event);
    if (event.type === "tool_call") {
      const call = index.calls[position++] as ToolCallView;
      for (const onCall of handle.call) onCall(call);
    }
  }
  return visitors.map((visitor) => visitor.end());
}

/** The visitors' `event` and `call` methods, in order. */
interface Handlers {
  event: ((event: RunEvent) => void)[];
  call: ((call: ToolCallView) => void)[];
}

/**
 * The visitors' methods, bound once: a run hands every event to every visitor, and calling a bound
 * method costs less than looking it up (or finding it missing) on visitors of many shapes each time.
 */
function handlersOf(visitors: RunVisitor[]): Handlers {
  return {
    event: visitors.flatMap((visitor) => (visitor.event ? [visitor.event.bind(visitor)] : [])),
    call: visitors.flatMap((visitor) => (visitor.call ? [visitor.call.bind(visitor)] : [])),
  };
}

/**
 * The start of a result Claude Code writes for a call that never ran: a PreToolUse hook's block, or a
 * permission it was not given.
 */
const NOT_RUN = /^(PreToolUse:\S+ hook error:|Claude requested permissions to )/;

/** A call waiting for its result before it is handed on. */
interface PendingCall {
  event: RunEvent & { type: "tool_call" };
  result: ToolResultEvent | undefined;
  /** Its id's HashedIds key. */
  key: number;
  /** The next call waiting with the same id (none in a run as Claude Code writes it). */
  next: PendingCall | undefined;
}

/**
 * Visits a run while an edge translator writes it (a RunSink: `streamJsonInto`, `claudeOutputInto`):
 * nothing is kept but the calls waiting for their results, the agents, the result lines and, when
 * `keep` is given, the whole run for the evaluators that need it. `exact` turns false when a fact
 * about a call came after the call was handed on (a denial only the result line names, as older
 * CLIs write; a result for an id already handed on, which a whole run gives every call of that id;
 * a result before its call): grade the whole run instead.
 */
export class RunStreamVisit implements RunSink {
  /** The run's shape without its events: meta, agents, notes. */
  private readonly shape = new RunBuilder(["stream"]);
  /** The run's facts, as the translator reads them. */
  readonly meta: RunMeta = this.shape.meta;
  readonly soFar: RunSoFar;
  /** The result lines, in order: the outcome is judged on them. */
  readonly finalResults: FinalResultEvent[] = [];
  /** Tool calls handed on. */
  calls = 0;
  /** False when a fact about a call came after the call was handed on: grade the whole run instead. */
  exact = true;
  private readonly agents = new Map<string, AgentInfo>([[MAIN_AGENT, { id: MAIN_AGENT, type: "main" }]]);
  private readonly visitors: RunVisitor[];
  private readonly handle: Handlers;
  private readonly denied = new Set<string>();
  /** Denials a permission_denied event or a result line named. */
  private readonly confirmed = new Set<string>();
  /** Calls taken as denied from their result's text, before the result line names them. */
  private readonly foreseen = new Set<string>();
  private readonly requested = new Set<string>();
  /** Events read but not yet handed on: they wait behind a call without its result. */
  private readonly queue: RunEvent[] = [];
  private head = 0;
  /** Id -> the first call of that id waiting (the others follow it through `next`). */
  private readonly pending = new PendingMap<string, PendingCall>();
  /** Ids of the calls handed on (hashed: a long run's ids would outweigh all else kept). */
  private readonly handedOn = new HashedIds();
  /** Ids of results that answered no call waiting (none in a run as Claude Code writes it). */
  private readonly unanswered = new Set<string>();
  private kindCall: ToolCallView | undefined;
  private kind: CallKind | undefined;
  private count = 0;

  /** The whole run, when it is kept for evaluators that need it. */
  private readonly keep: RunBuilder | undefined;

  constructor(makeVisitors: (soFar: RunSoFar) => RunVisitor[], options: { keepRun?: boolean } = {}) {
    if (options.keepRun) {
      this.keep = new RunBuilder(["stream"]);
      this.keep.meta = this.meta;
    }
    this.soFar = {
      cwd: undefined,
      meta: this.meta,
      parentOf: new Map([[MAIN_AGENT, undefined]]),
      typeOf: new Map([[MAIN_AGENT, "main"]]),
      agents: this.agents,
      blocked: new Set(),
      finalResult: undefined,
      kindOf: (call) => {
        // One slot: every rule asks about the call being visited. (A WeakMap of every call kept the
        // calls alive through the young generation's collections, into the old one.)
        if (call !== this.kindCall) {
          this.kindCall = call;
          this.kind = callKind(call);
        }
        return this.kind as CallKind;
      },
    };
    this.visitors = makeVisitors(this.soFar);
    this.handle = handlersOf(this.visitors);
  }

  /** Numbers the event and hands it on, with the events after it, once what it waits for is read. */
  push(input: RunEventInput): void {
    const event = input as RunEvent;
    event.index = this.count++;
    this.keep?.push(event);
    this.soFar.cwd = this.meta.cwd;
    switch (event.type) {
      case "tool_call": {
        // Whole, a run pairs each call with the last result of its id, wherever it is: a call whose
        // id was handed on already, or answered before the call, is judged on another result.
        const key = HashedIds.key(event.id);
        if (this.handedOn.has(key) || this.unanswered.has(event.id)) this.exact = false;
        const call: PendingCall = { event, result: undefined, key, next: undefined };
        let last = this.pending.get(event.id);
        if (last) {
          while (last.next) last = last.next;
          last.next = call;
        } else this.pending.set(event.id, call);
        break;
      }
      case "tool_result": {
        const waiting = this.pending.get(event.id);
        // A later result of a call handed on replaces the one it was judged with, in a whole run. (A
        // call waiting whose id was handed on already gave up when it came.)
        if (!waiting) {
          if (this.handedOn.has(HashedIds.key(event.id))) this.exact = false;
          else this.unanswered.add(event.id);
        }
        for (let call = waiting; call; call = call.next) call.result = event;
        // A call a PreToolUse hook blocked is named a denial only by the result line, at the end: its
        // result's text tells it now (and the result line must agree, see `end`).
        if (waiting && event.is_error && !this.denied.has(event.id) && NOT_RUN.test(event.error ?? "")) {
          this.foreseen.add(event.id);
          this.markDenied(event.id);
        }
        break;
      }
      case "permission_denied":
        if (event.id) this.deny(event.id);
        break;
      case "permission_request":
        if (event.id) {
          if (!this.pending.has(event.id)) this.exact = false;
          this.requested.add(event.id);
        }
        break;
      case "final_result":
        this.finalResults.push(event);
        for (const denial of event.permission_denials ?? []) {
          if (denial.tool_use_id) this.deny(denial.tool_use_id);
        }
        break;
    }
    this.queue.push(event);
    this.drain(false);
  }

  /** Keeps a note of the run (see RunSink). */
  note(note: RunNote): void {
    this.shape.note(note);
    this.keep?.note(note);
  }

  /** Registers an agent (see RunSink). */
  agent(info: AgentInfo): void {
    const merged = mergeAgent(this.agents.get(info.id), info);
    this.agents.set(info.id, merged);
    this.soFar.parentOf.set(merged.id, merged.id === MAIN_AGENT ? undefined : (merged.parent ?? MAIN_AGENT));
    this.soFar.typeOf.set(merged.id, merged.type);
    this.shape.agent(info);
    this.keep?.agent(info);
  }

  /** Whether the agent is known (see RunSink). */
  hasAgent(id: string): boolean {
    return this.agents.has(id);
  }

  /** Hands on what is left and ends every visitor: their outcomes, in order. */
  end(): unknown[] {
    this.drain(true);
    for (const id of this.foreseen) if (!this.confirmed.has(id)) this.exact = false;
    return this.visitors.map((visitor) => visitor.end());
  }

  /**
   * After `end`: the whole run when it was kept, else the run without its events but the result lines
   * (what the outcome is judged on and reports name: its id, cwd, agents and notes).
   */
  run(): Run {
    return this.keep ? this.keep.build() : { ...this.shape.build(), events: this.finalResults };
  }

  private deny(id: string): void {
    // A denial of a call already handed on changes what the rules were told about it.
    if (!this.pending.has(id) && !this.denied.has(id)) this.exact = false;
    this.confirmed.add(id);
    this.markDenied(id);
  }

  private markDenied(id: string): void {
    this.denied.add(id);
    this.soFar.blocked.add(id);
  }

  /** Hands on the events in order, up to the first call still waiting for its result (all at the end). */
  private drain(all: boolean): void {
    const queue = this.queue;
    while (this.head < queue.length) {
      const event = queue[this.head] as RunEvent;
      let call: ToolCallView | undefined;
      if (event.type === "tool_call") {
        const pending = this.pending.get(event.id);
        if (pending === undefined || pending.event !== event)
          throw new Error(`call ${event.id} lost its place`);
        if (pending.result === undefined && !all) break;
        if (pending.next) this.pending.set(event.id, pending.next);
        else this.pending.delete(event.id);
        this.handedOn.add(pending.key);
        call = this.view(pending);
      }
      this.head++;
      if (event.type === "final_result") this.soFar.finalResult = event;
      for (const onEvent of this.handle.event) onEvent(event);
      if (call) for (const onCall of this.handle.call) onCall(call);
    }
    if (this.head === queue.length) {
      queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > queue.length) {
      queue.splice(0, this.head);
      this.head = 0;
    }
  }

  private view({ event, result }: PendingCall): ToolCallView {
    const denied = this.denied.has(event.id);
    // Every field in one literal, as listToolCalls makes them.
    return {
      id: event.id,
      name: event.name,
      input: event.input,
      agent: event.agent,
      index: event.index,
      position: this.calls++,
      timestamp: event.timestamp || undefined,
      result,
      permissionRequested: this.requested.has(event.id),
      status: denied ? "denied" : !result ? "incomplete" : result.is_error ? "error" : "ok",
    };
  }
}
