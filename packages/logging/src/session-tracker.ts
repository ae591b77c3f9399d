import {
  type AgentInfo,
  DELEGATION_TOOLS as CORE_DELEGATION_TOOLS,
  isDelegationTool,
  MAIN_AGENT,
  type Run,
  type RunEvent,
  type ToolCallEvent,
  type ToolResultEvent,
} from "@evals/core";

/**
 * The tools Claude Code delegates through (`Agent` and `Task`): @evals/core's DELEGATION_TOOLS, as a
 * set for existing users. Prefer `isDelegationTool` from @evals/core.
 */
export const DELEGATION_TOOLS: ReadonlySet<string> = new Set(CORE_DELEGATION_TOOLS);

/** One agent session of a run: the main agent or a subagent, with what it did. */
export interface SessionNode {
  /** "main" or the subagent's agent_id. */
  id: string;
  /** "main", or the subagent type (general-purpose, Explore, ...). */
  type: string;
  /** The agent that delegated to this one (absent for main). */
  parent?: string;
  /** The Agent/Task tool call that started it. */
  parentToolUseId?: string;
  /** 0 for main, 1 for its subagents, 2 for theirs, ... */
  depth: number;
  children: SessionNode[];
  /** What it was asked to do, and the short description the delegating call gave. */
  prompt?: string;
  description?: string;
  /** Its final report, when it stopped. */
  lastMessage?: string;
  status: "running" | "finished";
  /** Index in run.events of its first and last event (its start, its own events, its stop). */
  firstEventIndex: number;
  lastEventIndex: number;
  /** ISO times when known (from event timestamps, or the tracker's clock when live). */
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  toolCalls: number;
  toolCallsByName: Record<string, number>;
  /** Tool calls that returned an error or were denied. */
  toolErrors: number;
  /** Events that belong to this agent. */
  events: number;
  /** Cost in USD where known: on main, the whole run's cost (Claude Code reports no per-agent cost). */
  costUsd?: number;
}

/** One agent handing work to another through the Agent/Task tool. */
export interface Delegation {
  /** The delegating agent's id and type. */
  from: string;
  fromType: string;
  /** The subagent's id, once it started. */
  to?: string;
  /** The subagent type asked for. */
  agentType: string;
  prompt?: string;
  description?: string;
  toolUseId?: string;
  /** Index of the Agent/Task tool_call (or of the subagent_start when no call was seen). */
  eventIndex: number;
  background: boolean;
  /**
   * requested: the call was made, no subagent yet; running / completed: the subagent started / stopped;
   * failed: the call returned an error (denied, blocked, crashed) and no subagent ran.
   */
  status: "requested" | "running" | "completed" | "failed";
  durationMs?: number;
}

export interface SessionTree {
  root: SessionNode;
  /** Every session, in the order they started. */
  sessions: SessionNode[];
  totalSessions: number;
  maxDepth: number;
  delegations: Delegation[];
}

/** What one event changed, for live output. */
export type SessionChange =
  | { kind: "session_start"; session: SessionNode; delegation?: Delegation }
  | { kind: "session_end"; session: SessionNode; delegation?: Delegation }
  | { kind: "delegation"; delegation: Delegation; session: SessionNode }
  | { kind: "tool_call"; session: SessionNode; call: ToolCallEvent }
  | {
      kind: "tool_result";
      session: SessionNode;
      result: ToolResultEvent;
      call?: ToolCallEvent;
      durationMs?: number;
    }
  | { kind: "tool_denied"; session: SessionNode; toolName: string; message?: string; call?: ToolCallEvent }
  | {
      kind: "run_end";
      session: SessionNode;
      isError: boolean;
      subtype: string;
      /** Claude Code's terminal_reason (completed, prompt_too_long, api_error, ...), when it gave one. */
      terminalReason?: string;
    };

export interface SessionTrackerOptions {
  /**
   * Time source for events without a timestamp (epoch ms). Give one when feeding events live
   * (`Date.now`), so durations are known as they happen; leave it out for stored runs.
   */
  clock?: () => number;
  /** The run's agent list (run.agents), to place agents whose start event is missing. */
  agents?: AgentInfo[];
}

interface NodeTimes {
  startMs?: number;
  endMs?: number;
  firstOwnMs?: number;
  lastOwnMs?: number;
  /** Duration measured by Claude Code (the Agent call's tool_result duration_ms). */
  measuredMs?: number;
}

interface OpenCall {
  call: ToolCallEvent;
  ms: number | undefined;
}

const NO_CHANGES: SessionChange[] = [];

/**
 * Builds the agent hierarchy of a run: feed it events in order (`add`, live as they come, or
 * `addRun`), then read `buildTree()`. Linear in the number of events.
 */
export class SessionTracker {
  private readonly nodes = new Map<string, SessionNode>();
  private readonly times = new Map<string, NodeTimes>();
  private readonly order: SessionNode[] = [];
  private readonly delegationList: Delegation[] = [];
  /** Agent/Task tool_use_id -> its delegation. */
  private readonly delegationByCall = new Map<string, Delegation>();
  private readonly openCalls = new Map<string, OpenCall>();
  /** Calls already counted as errors (a denial is often followed by an error result). */
  private readonly failedCalls = new Set<string>();
  private readonly knownAgents = new Map<string, AgentInfo>();
  private readonly clock: (() => number) | undefined;
  private eventCount = 0;

  constructor(options: SessionTrackerOptions = {}) {
    this.clock = options.clock;
    for (const agent of options.agents ?? []) this.knownAgents.set(agent.id, agent);
    this.root = this.createNode(MAIN_AGENT, "main", undefined, undefined, 0);
  }

  readonly root: SessionNode;

  /** Builds the tree of a whole stored run. */
  static fromRun(run: Pick<Run, "events" | "agents">): SessionTracker {
    const tracker = new SessionTracker({ agents: run.agents });
    for (const event of run.events) tracker.add(event);
    return tracker;
  }

  addRun(run: Pick<Run, "events" | "agents">): void {
    for (const agent of run.agents)
      if (!this.knownAgents.has(agent.id)) this.knownAgents.set(agent.id, agent);
    for (const event of run.events) this.add(event);
  }

  session(id: string): SessionNode | undefined {
    return this.nodes.get(id);
  }

  /** Feeds one event; returns what it changed (sessions started or ended, calls, delegations). */
  add(event: RunEvent): SessionChange[] {
    const index = event.index ?? this.eventCount;
    this.eventCount = Math.max(this.eventCount, index + 1);
    const ms = this.timeOf(event);
    switch (event.type) {
      case "subagent_start":
        return this.startSubagent(event, index, ms);
      case "subagent_stop":
        return this.stopSubagent(event.agent_id, index, ms, event.last_message);
      default:
        break;
    }
    const changes: SessionChange[] = [];
    const node = this.nodeFor(event.agent, index, changes);
    this.touch(node, index, ms);
    switch (event.type) {
      case "tool_call": {
        node.toolCalls++;
        countTool(node.toolCallsByName, event.name);
        this.openCalls.set(event.id, { call: event, ms });
        changes.push({ kind: "tool_call", session: node, call: event });
        if (isDelegationTool(event.name)) {
          const delegation = this.delegationFromCall(event, node, index);
          changes.push({ kind: "delegation", delegation, session: node });
        }
        break;
      }
      case "tool_result": {
        const open = this.openCalls.get(event.id);
        this.openCalls.delete(event.id);
        if (event.is_error) this.countError(node, event.id);
        const durationMs =
          event.duration_ms ??
          (open?.ms !== undefined && ms !== undefined ? Math.max(0, ms - open.ms) : undefined);
        // Every key always set: one object shape keeps this hot path fast.
        changes.push({ kind: "tool_result", session: node, result: event, call: open?.call, durationMs });
        const delegation = this.delegationByCall.get(event.id);
        if (delegation) changes.push(...this.delegationAnswered(delegation, event, index, ms));
        break;
      }
      case "permission_denied": {
        this.countError(node, event.id);
        const open = event.id ? this.openCalls.get(event.id) : undefined;
        changes.push({
          kind: "tool_denied",
          session: node,
          toolName: event.tool_name,
          ...(event.message ? { message: event.message } : {}),
          ...(open ? { call: open.call } : {}),
        });
        const delegation = event.id ? this.delegationByCall.get(event.id) : undefined;
        if (delegation && delegation.status === "requested") delegation.status = "failed";
        break;
      }
      case "final_result": {
        if (event.total_cost_usd !== undefined) node.costUsd = event.total_cost_usd;
        if (event.duration_ms !== undefined) this.timesOf(node).measuredMs = event.duration_ms;
        node.status = "finished";
        this.timesOf(node).endMs = ms ?? this.timesOf(node).lastOwnMs;
        this.refreshTimes(node);
        changes.push({
          kind: "run_end",
          session: node,
          isError: event.is_error,
          subtype: event.subtype,
          ...(event.terminal_reason ? { terminalReason: event.terminal_reason } : {}),
        });
        break;
      }
      default:
        break;
    }
    return changes;
  }

  /** The hierarchy as it stands: root, every session, depth, delegations. */
  buildTree(): SessionTree {
    let maxDepth = 0;
    for (const node of this.order) {
      maxDepth = Math.max(maxDepth, node.depth);
      this.refreshTimes(node);
    }
    for (const delegation of this.delegationList) {
      if (delegation.to && delegation.durationMs === undefined) {
        const duration = this.nodes.get(delegation.to)?.durationMs;
        if (duration !== undefined) delegation.durationMs = duration;
      }
    }
    return {
      root: this.root,
      sessions: [...this.order],
      totalSessions: this.order.length,
      maxDepth,
      delegations: [...this.delegationList],
    };
  }

  private startSubagent(
    event: Extract<RunEvent, { type: "subagent_start" }>,
    index: number,
    ms: number | undefined,
  ): SessionChange[] {
    const changes: SessionChange[] = [];
    const parent = this.nodeFor(event.agent, index, changes);
    this.touch(parent, index, ms);
    let node = this.nodes.get(event.agent_id);
    const delegation = event.parent_tool_use_id
      ? this.delegationByCall.get(event.parent_tool_use_id)
      : undefined;
    const type = event.agent_type ?? delegation?.agentType ?? "subagent";
    if (node) {
      // Seen before its start (events out of order): adopt what the start says.
      node.type = event.agent_type ?? node.type;
    } else {
      node = this.createNode(event.agent_id, type, parent, event.parent_tool_use_id, index);
    }
    const times = this.timesOf(node);
    times.startMs ??=
      ms ?? (event.parent_tool_use_id ? this.openCalls.get(event.parent_tool_use_id)?.ms : undefined);
    const prompt = event.prompt ?? delegation?.prompt;
    if (prompt !== undefined) node.prompt = prompt;
    if (delegation?.description !== undefined) node.description = delegation.description;
    let started = delegation;
    if (delegation) {
      delegation.to = node.id;
      delegation.status = "running";
    } else {
      started = {
        from: parent.id,
        fromType: parent.type,
        to: node.id,
        agentType: type,
        ...(prompt !== undefined ? { prompt } : {}),
        ...(event.parent_tool_use_id ? { toolUseId: event.parent_tool_use_id } : {}),
        eventIndex: index,
        background: false,
        status: "running",
      };
      this.delegationList.push(started);
      if (event.parent_tool_use_id) this.delegationByCall.set(event.parent_tool_use_id, started);
    }
    changes.push({ kind: "session_start", session: node, ...(started ? { delegation: started } : {}) });
    return changes;
  }

  private stopSubagent(
    agentId: string,
    index: number,
    ms: number | undefined,
    lastMessage: string | undefined,
  ): SessionChange[] {
    const changes: SessionChange[] = [];
    const node = this.nodeFor(agentId, index, changes);
    if (node.status === "finished") return changes;
    node.lastEventIndex = Math.max(node.lastEventIndex, index);
    node.status = "finished";
    if (lastMessage !== undefined) node.lastMessage = lastMessage;
    const times = this.timesOf(node);
    times.endMs = ms ?? times.lastOwnMs;
    this.refreshTimes(node);
    const delegation = node.parentToolUseId ? this.delegationByCall.get(node.parentToolUseId) : undefined;
    if (delegation) {
      delegation.status = "completed";
      if (node.durationMs !== undefined) delegation.durationMs = node.durationMs;
    }
    changes.push({ kind: "session_end", session: node, ...(delegation ? { delegation } : {}) });
    return changes;
  }

  private delegationFromCall(call: ToolCallEvent, from: SessionNode, index: number): Delegation {
    const input = call.input;
    const delegation: Delegation = {
      from: from.id,
      fromType: from.type,
      agentType: typeof input.subagent_type === "string" ? input.subagent_type : "general-purpose",
      ...(typeof input.prompt === "string" ? { prompt: input.prompt } : {}),
      ...(typeof input.description === "string" ? { description: input.description } : {}),
      toolUseId: call.id,
      eventIndex: index,
      background: input.run_in_background === true,
      status: "requested",
    };
    this.delegationList.push(delegation);
    this.delegationByCall.set(call.id, delegation);
    return delegation;
  }

  /** The Agent call returned: a failure when nothing started; the end of a foreground subagent. */
  private delegationAnswered(
    delegation: Delegation,
    result: ToolResultEvent,
    index: number,
    ms: number | undefined,
  ): SessionChange[] {
    if (!delegation.to) {
      if (result.is_error) delegation.status = "failed";
      return NO_CHANGES;
    }
    const node = this.nodes.get(delegation.to);
    if (!node) return NO_CHANGES;
    if (result.duration_ms !== undefined && !delegation.background) {
      this.timesOf(node).measuredMs = result.duration_ms;
      delegation.durationMs = result.duration_ms;
    }
    // A foreground subagent is over when its call returns, even if its stop event was lost.
    if (node.status === "running" && !delegation.background) {
      const times = this.timesOf(node);
      times.endMs = ms ?? times.lastOwnMs;
      return this.stopSubagent(node.id, index, ms, undefined);
    }
    this.refreshTimes(node);
    return NO_CHANGES;
  }

  private nodeFor(agentId: string, index: number, changes: SessionChange[]): SessionNode {
    const known = this.nodes.get(agentId);
    if (known) return known;
    // An agent we never saw start: place it from the run's agent list, else under main.
    const info = this.knownAgents.get(agentId);
    const parent = (info?.parent ? this.nodes.get(info.parent) : undefined) ?? this.root;
    const node = this.createNode(agentId, info?.type ?? "subagent", parent, info?.parent_tool_use_id, index);
    const delegation = info?.parent_tool_use_id
      ? this.delegationByCall.get(info.parent_tool_use_id)
      : undefined;
    if (delegation && !delegation.to) {
      delegation.to = agentId;
      delegation.status = "running";
      if (delegation.prompt !== undefined) node.prompt = delegation.prompt;
      if (delegation.description !== undefined) node.description = delegation.description;
      const callMs = this.openCalls.get(info!.parent_tool_use_id!)?.ms;
      if (callMs !== undefined) this.timesOf(node).startMs = callMs;
    }
    changes.push({ kind: "session_start", session: node, ...(delegation ? { delegation } : {}) });
    return node;
  }

  private createNode(
    id: string,
    type: string,
    parent: SessionNode | undefined,
    parentToolUseId: string | undefined,
    index: number,
  ): SessionNode {
    const node: SessionNode = {
      id,
      type,
      ...(parent ? { parent: parent.id } : {}),
      ...(parentToolUseId ? { parentToolUseId } : {}),
      depth: parent ? parent.depth + 1 : 0,
      children: [],
      status: "running",
      firstEventIndex: index,
      lastEventIndex: index,
      toolCalls: 0,
      toolCallsByName: {},
      toolErrors: 0,
      events: 0,
    };
    parent?.children.push(node);
    this.nodes.set(id, node);
    this.times.set(id, {});
    this.order.push(node);
    return node;
  }

  private countError(node: SessionNode, callId: string | undefined): void {
    if (callId !== undefined) {
      if (this.failedCalls.has(callId)) return;
      this.failedCalls.add(callId);
    }
    node.toolErrors++;
  }

  private touch(node: SessionNode, index: number, ms: number | undefined): void {
    node.events++;
    if (index > node.lastEventIndex) node.lastEventIndex = index;
    if (index < node.firstEventIndex) node.firstEventIndex = index;
    if (ms === undefined) return;
    const times = this.timesOf(node);
    times.firstOwnMs ??= ms;
    times.lastOwnMs = ms;
  }

  private timesOf(node: SessionNode): NodeTimes {
    return this.times.get(node.id)!;
  }

  /** start = its start event, else the delegating call, else its first event; end = its stop, else its last. */
  private refreshTimes(node: SessionNode): void {
    const times = this.timesOf(node);
    const start = times.startMs ?? times.firstOwnMs;
    const end = node.status === "finished" ? (times.endMs ?? times.lastOwnMs) : times.lastOwnMs;
    if (start !== undefined) node.startedAt = new Date(start).toISOString();
    if (end !== undefined && node.status === "finished") node.endedAt = new Date(end).toISOString();
    if (times.measuredMs !== undefined) node.durationMs = times.measuredMs;
    else if (start !== undefined && end !== undefined) node.durationMs = Math.max(0, end - start);
  }

  private timeOf(event: RunEvent): number | undefined {
    if (event.timestamp) {
      const ms = isoToMs(event.timestamp);
      if (!Number.isNaN(ms)) return ms;
    }
    return this.clock?.();
  }
}

let cachedDay = "";
let cachedDayMs = 0;

/**
 * Epoch ms of an ISO time. The shape Claude Code writes ("2026-11-21T23:57:19.001Z") is read by hand,
 * several times faster than Date.parse on long runs; anything else goes to Date.parse.
 */
export function isoToMs(iso: string): number {
  if (
    iso.length !== 24 ||
    iso.charCodeAt(10) !== 84 /* T */ ||
    iso.charCodeAt(13) !== 58 /* : */ ||
    iso.charCodeAt(16) !== 58 ||
    iso.charCodeAt(19) !== 46 /* . */ ||
    iso.charCodeAt(23) !== 90 /* Z */
  ) {
    return Date.parse(iso);
  }
  let clock = 0;
  for (const at of CLOCK_DIGITS) {
    const digit = iso.charCodeAt(at) - 48;
    if (digit < 0 || digit > 9) return Date.parse(iso);
    clock = clock * 10 + digit;
  }
  // clock is HHMMSSmmm as one number.
  const hours = Math.floor(clock / 10_000_000);
  const minutes = Math.floor(clock / 100_000) % 100;
  const seconds = Math.floor(clock / 1000) % 100;
  if (hours > 23 || minutes > 59 || seconds > 59) return Date.parse(iso);
  const day = iso.slice(0, 10);
  if (day !== cachedDay) {
    const ms = Date.parse(`${day}T00:00:00.000Z`);
    if (Number.isNaN(ms)) return Date.parse(iso);
    cachedDay = day;
    cachedDayMs = ms;
  }
  return cachedDayMs + ((hours * 60 + minutes) * 60 + seconds) * 1000 + (clock % 1000);
}

const CLOCK_DIGITS = [11, 12, 14, 15, 17, 18, 20, 21, 22];

/** The session tree of a stored run. */
export function buildSessionTree(run: Pick<Run, "events" | "agents">): SessionTree {
  return SessionTracker.fromRun(run).buildTree();
}

/**
 * Adds one to a tool's count. An own property is defined, so a tool named "constructor" or
 * "__proto__" is counted like any other instead of reaching Object.prototype.
 */
function countTool(counts: Record<string, number>, name: string): void {
  const value = (Object.hasOwn(counts, name) ? (counts[name] ?? 0) : 0) + 1;
  Object.defineProperty(counts, name, { value, enumerable: true, writable: true, configurable: true });
}
