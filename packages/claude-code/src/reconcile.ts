import {
  type AgentInfo,
  type HookInput,
  MAIN_AGENT,
  type Run,
  type RunEvent,
  type RunEventInput,
  type RunNote,
  type RunSource,
  runFromHookEvents,
  runFromStreamJson,
} from "@evals/core";

/**
 * Reconciles what the stream-json output said with what the capture hooks saw, into one Run.
 *
 * Neither source is trusted alone (Claude Code versions have dropped hook events and left
 * tool_use_id out of hook payloads). The stream gives the order and what the model saw; the hooks
 * add permission requests, durations, timestamps and real subagent ids. Events are joined by
 * tool_use_id (tool calls and results) or agent id (subagents); ids one source lacks are
 * back-filled from the other; events only one source saw are kept, marked by `sources`, and noted
 * (`only_in_stream` / `only_in_hooks`) where both sources should have seen them.
 */

type Json = Record<string, unknown>;

export interface ReconcileInput {
  /** The CLI's stream-json stdout, parsed line by line. */
  streamLines: unknown[];
  /** The captured hook inputs, in capture order. */
  hookEvents: HookInput[];
  /** Capture times parallel to hookEvents, when known. */
  hookTimestamps?: (string | undefined)[];
  /** Prompts given with -p (they are not echoed in the stream). */
  prompts?: string[];
  runId?: string;
  /** Which hook events were captured: the hooks are not expected to see the rest. Default: all. */
  hookCoverage?: HookCoverage;
}

/** The hook events a capture registered, and for tool events the tools they fired for. */
export interface HookCoverage {
  events: readonly string[];
  /** Tool-name matchers by event (`"Agent|Task"`, a list of names); absent or "*" = every tool. */
  toolMatcher?: Readonly<Record<string, string>>;
}

/** Builds the reconciled Run of one run from its two sources. */
export function reconcileRun(input: ReconcileInput): Run {
  // Denials: the stream says them (system/permission_denied, the result's permission_denials); with
  // hooks alone, runFromHookEvents infers them as `evals grade` does.
  const hooksRun = runFromHookEvents(input.hookEvents, {
    ...(input.runId ? { runId: input.runId } : {}),
    ...(input.hookTimestamps ? { timestamps: input.hookTimestamps } : {}),
    inferDenials: input.streamLines.length === 0,
  });
  const repaired = backfillStreamIds(input.streamLines, hooksRun);
  const streamRun = runFromStreamJson(repaired.lines, {
    prompts: input.prompts ?? [],
    ...(input.runId ? { runId: input.runId } : {}),
  });
  streamRun.notes.push(...repaired.notes);
  if (input.hookEvents.length === 0) return streamRun;
  if (input.streamLines.length === 0) return { ...hooksRun, notes: [...hooksRun.notes] };
  return reconcileRuns(streamRun, hooksRun, input.hookCoverage);
}

/* ------------------------------------------------------------------------------------------- */
/* Stream-side back-fill: tool_use blocks or tool_result blocks that lack their id.              */

interface HookCall {
  id: string;
  name: string;
  agent: string;
  input: string;
  claimed: boolean;
}

/**
 * Gives tool_use blocks without an `id` the id of the matching hook PreToolUse (same tool, same
 * input, first unclaimed), and tool_result blocks without a `tool_use_id` the id of the oldest
 * call of that agent still waiting for its result. Lines are copied, never changed in place.
 */
export function backfillStreamIds(lines: unknown[], hooksRun: Run): { lines: unknown[]; notes: RunNote[] } {
  const notes: RunNote[] = [];
  const hookCalls: HookCall[] = [];
  for (const event of hooksRun.events) {
    if (event.type === "tool_call" && !event.id.startsWith("missing:")) {
      hookCalls.push({
        id: event.id,
        name: event.name,
        agent: event.agent,
        input: stableJson(event.input),
        claimed: false,
      });
    }
  }
  const streamIds = new Set<string>();
  for (const line of lines) {
    for (const block of contentBlocks(line)) {
      if (block.type === "tool_use" && typeof block.id === "string") streamIds.add(block.id);
    }
  }
  for (const call of hookCalls) if (streamIds.has(call.id)) call.claimed = true;

  /** Per agent key (agent_id, parent_tool_use_id or main): calls still waiting for a result. */
  const pending = new Map<string, string[]>();
  let synthetic = 0;
  const out = lines.map((raw) => {
    const line = raw as Json;
    if (!line || typeof line !== "object" || (line.type !== "assistant" && line.type !== "user")) return raw;
    const message = line.message as Json | undefined;
    if (!message || !Array.isArray(message.content)) return raw;
    const agentKey =
      typeof line.agent_id === "string"
        ? line.agent_id
        : typeof line.parent_tool_use_id === "string"
          ? `task:${line.parent_tool_use_id}`
          : MAIN_AGENT;
    const queue = pending.get(agentKey) ?? [];
    pending.set(agentKey, queue);
    let changed = false;
    const content = (message.content as Json[]).map((block) => {
      if (!block || typeof block !== "object") return block;
      if (block.type === "tool_use") {
        if (typeof block.id === "string") {
          queue.push(block.id);
          return block;
        }
        const input = stableJson(block.input ?? {});
        const match = hookCalls.find(
          (call) => !call.claimed && call.name === block.name && call.input === input,
        );
        const id = match?.id ?? `missing:stream:${++synthetic}`;
        if (match) match.claimed = true;
        notes.push({
          kind: "id_backfilled",
          message: match
            ? `stream tool_use of ${String(block.name)} had no id; took ${id} from its PreToolUse hook`
            : `stream tool_use of ${String(block.name)} had no id and no hook saw it; called it ${id}`,
          tool_use_id: id,
        });
        queue.push(id);
        changed = true;
        return { ...block, id };
      }
      if (block.type === "tool_result") {
        if (typeof block.tool_use_id === "string") {
          const at = queue.indexOf(block.tool_use_id);
          if (at >= 0) queue.splice(at, 1);
          return block;
        }
        const id = queue.shift();
        if (!id) return block;
        notes.push({
          kind: "id_backfilled",
          message: `stream tool_result had no tool_use_id; matched to the oldest open call ${id}`,
          tool_use_id: id,
        });
        changed = true;
        return { ...block, tool_use_id: id };
      }
      return block;
    });
    return changed ? { ...line, message: { ...message, content } } : raw;
  });
  return { lines: out, notes };
}

function contentBlocks(line: unknown): Json[] {
  if (!line || typeof line !== "object") return [];
  const message = (line as Json).message as Json | undefined;
  return message && Array.isArray(message.content) ? (message.content as Json[]) : [];
}

/* ------------------------------------------------------------------------------------------- */
/* Merging two runs.                                                                              */

/** Event types both sources report when they happen: seeing one in only one source is news. */
const BOTH_SOURCES_EXPECTED = new Set<RunEvent["type"]>([
  "tool_call",
  "tool_result",
  "subagent_start",
  "subagent_stop",
]);

interface Slot {
  event: RunEventInput;
  sources: Set<RunSource>;
}

/**
 * Merges a stream-built run with a hook-built run of the same session. The stream's order is
 * kept; events only the hooks saw are placed after the last event both sources agree on.
 */
export function reconcileRuns(stream: Run, hooks: Run, coverage?: HookCoverage): Run {
  const notes: { note: Omit<RunNote, "event_index">; slot?: Slot }[] = [];
  const agentMap = mapStreamAgents(stream, hooks);
  const streamEvents = stream.events.map((event) => remapAgents(stripIndex(event), agentMap));
  const hookEvents = hooks.events.map(stripIndex);
  const backfilled: Omit<RunNote, "event_index">[] = [];
  const renamed = backfillHookIds(streamEvents, hookEvents, (note) => backfilled.push(note));

  // Notes about placeholder ids ("missing:...") that now have their real id are out of date.
  for (const note of [...stream.notes, ...hooks.notes]) {
    if (!note.tool_use_id || !renamed.has(note.tool_use_id)) notes.push({ note: withoutIndex(note) });
  }
  for (const note of backfilled) notes.push({ note });

  const slots: Slot[] = streamEvents.map((event) => ({ event, sources: new Set<RunSource>(["stream"]) }));
  const byKey = new Map<string, Slot>();
  const occurrences = new Map<string, number>();
  /** Stream tool calls by id: a hook event of a call the hooks did not see follows its call. */
  const callSlots = new Map<string, Slot>();
  for (const slot of slots) {
    const key = matchKey(slot.event, occurrences);
    if (key && !byKey.has(key)) byKey.set(key, slot);
    if (slot.event.type === "tool_call" && !callSlots.has(slot.event.id)) callSlots.set(slot.event.id, slot);
  }
  const hooksSee = hooksExpected(coverage, (id) => {
    const call = callSlots.get(id)?.event;
    return call?.type === "tool_call" ? call.name : undefined;
  });

  /** Hook events with no stream counterpart, grouped under the slot they follow. */
  const inserts = new Map<Slot | "start", Slot[]>();
  const hookOccurrences = new Map<string, number>();
  let anchor: Slot | "start" = "start";
  for (const event of hookEvents) {
    const key = matchKey(event, hookOccurrences);
    const match = key ? byKey.get(key) : undefined;
    if (match && !match.sources.has("hooks")) {
      match.sources.add("hooks");
      match.event = mergeEvent(match.event, event);
      anchor = match;
      continue;
    }
    const slot: Slot = { event, sources: new Set<RunSource>(["hooks"]) };
    const call = "id" in event && event.id ? callSlots.get(event.id) : undefined;
    if (call && !hooksSee(call.event)) anchor = call;
    const list = inserts.get(anchor) ?? [];
    list.push(slot);
    inserts.set(anchor, list);
    if (BOTH_SOURCES_EXPECTED.has(event.type)) {
      notes.push({
        note: {
          kind: "only_in_hooks",
          message: `${describe(event)} was seen by the hooks only`,
          ...idOf(event),
        },
        slot,
      });
    }
  }

  const ordered: Slot[] = [...(inserts.get("start") ?? [])];
  for (const slot of slots) ordered.push(slot, ...(inserts.get(slot) ?? []));

  const deniedOrBlocked = deniedCallIds(streamEvents);
  for (const slot of slots) {
    if (slot.sources.has("hooks") || !BOTH_SOURCES_EXPECTED.has(slot.event.type)) continue;
    if (!hooksSee(slot.event)) continue;
    // Hooks report no result for a tool that never ran (denied, or blocked by a PreToolUse hook).
    if (slot.event.type === "tool_result" && (slot.event.is_error || deniedOrBlocked.has(slot.event.id)))
      continue;
    notes.push({
      note: {
        kind: "only_in_stream",
        message: `${describe(slot.event)} was seen in the stream only`,
        ...idOf(slot.event),
      },
      slot,
    });
  }

  const events = ordered.map((slot, index) => ({
    ...slot.event,
    index,
    sources: (["stream", "hooks"] as const).filter((source) => slot.sources.has(source)),
  })) as RunEvent[];
  const indexOf = new Map(ordered.map((slot, index) => [slot, index]));

  return {
    version: stream.version,
    ...definedOnly({
      id: stream.id ?? hooks.id,
      session_id: stream.session_id ?? hooks.session_id,
      cwd: stream.cwd ?? hooks.cwd,
      model: stream.model ?? hooks.model,
      claude_version: stream.claude_version ?? hooks.claude_version,
      tools: stream.tools ?? hooks.tools,
      skills: stream.skills ?? hooks.skills,
      instructions: stream.instructions ?? hooks.instructions,
    }),
    sources: unique([...stream.sources, ...hooks.sources]),
    agents: mergeAgents(
      stream.agents.map((agent) => remapAgentInfo(agent, agentMap)),
      hooks.agents,
    ),
    events,
    notes: notes.map(({ note, slot }) => {
      const index = slot ? indexOf.get(slot) : undefined;
      return index === undefined ? note : { ...note, event_index: index };
    }),
  };
}

/** The key two sources' versions of one event share; undefined when the event is never matched. */
function matchKey(event: RunEventInput, occurrences: Map<string, number>): string | undefined {
  let base: string | undefined;
  switch (event.type) {
    case "tool_call":
      return `call:${event.id}`;
    case "tool_result":
      return `result:${event.id}`;
    case "subagent_start":
      return `start:${event.agent_id}`;
    case "subagent_stop":
      return `stop:${event.agent_id}`;
    case "permission_denied":
      // The stream's denial and the one the hooks inferred (runFromHookEvents) are one event.
      return event.id ? `denied:${event.id}` : undefined;
    case "user_message":
      base = `user:${event.agent}:${event.text.trim()}`;
      break;
    case "assistant_text":
      base = `text:${event.agent}:${event.text.trim()}`;
      break;
    default:
      return undefined;
  }
  const seen = occurrences.get(base) ?? 0;
  occurrences.set(base, seen + 1);
  return `${base}#${seen}`;
}

/** The stream's version of an event, completed with what only the hooks knew. */
function mergeEvent(fromStream: RunEventInput, fromHooks: RunEventInput): RunEventInput {
  const merged: Json = { ...fromStream };
  if (!merged.timestamp && fromHooks.timestamp) merged.timestamp = fromHooks.timestamp;
  if (fromStream.type === "tool_result" && fromHooks.type === "tool_result") {
    if (merged.duration_ms === undefined && fromHooks.duration_ms !== undefined) {
      merged.duration_ms = fromHooks.duration_ms;
    }
    if (fromHooks.is_error && !fromStream.is_error) {
      merged.is_error = true;
      if (fromHooks.error) merged.error = fromHooks.error;
    }
  }
  if (fromStream.type === "subagent_start" && fromHooks.type === "subagent_start") {
    for (const field of ["agent_type", "parent_tool_use_id", "prompt"] as const) {
      if (merged[field] === undefined && fromHooks[field] !== undefined) merged[field] = fromHooks[field];
    }
  }
  if (fromStream.type === "subagent_stop" && fromHooks.type === "subagent_stop") {
    if (fromHooks.agent_type && merged.agent_type === undefined) merged.agent_type = fromHooks.agent_type;
    // The hook has the subagent's last message verbatim; the stream only a summary.
    if (fromHooks.last_message !== undefined) merged.last_message = fromHooks.last_message;
  }
  return merged as RunEventInput;
}

/**
 * Stream lines of a subagent that carry `parent_tool_use_id` but no `agent_id` are filed under
 * `task:<parent_tool_use_id>`; the hooks know that subagent's real id.
 */
function mapStreamAgents(stream: Run, hooks: Run): Map<string, string> {
  const map = new Map<string, string>();
  const hookAgentByParent = new Map<string, string>();
  for (const agent of hooks.agents) {
    if (agent.parent_tool_use_id) hookAgentByParent.set(agent.parent_tool_use_id, agent.id);
  }
  for (const agent of stream.agents) {
    if (!agent.id.startsWith("task:")) continue;
    const real = hookAgentByParent.get(agent.id.slice("task:".length));
    if (real) map.set(agent.id, real);
  }
  for (const event of stream.events) {
    if (event.agent.startsWith("task:") && !map.has(event.agent)) {
      const real = hookAgentByParent.get(event.agent.slice("task:".length));
      if (real) map.set(event.agent, real);
    }
  }
  return map;
}

function remapAgents(event: RunEventInput, map: Map<string, string>): RunEventInput {
  if (map.size === 0) return event;
  const out: Json = { ...event };
  if (map.has(event.agent)) out.agent = map.get(event.agent);
  if ((event.type === "subagent_start" || event.type === "subagent_stop") && map.has(event.agent_id)) {
    out.agent_id = map.get(event.agent_id);
  }
  return out as RunEventInput;
}

function remapAgentInfo(agent: AgentInfo, map: Map<string, string>): AgentInfo {
  return {
    ...agent,
    id: map.get(agent.id) ?? agent.id,
    ...(agent.parent ? { parent: map.get(agent.parent) ?? agent.parent } : {}),
  };
}

function mergeAgents(fromStream: AgentInfo[], fromHooks: AgentInfo[]): AgentInfo[] {
  const agents = new Map<string, AgentInfo>();
  for (const agent of [...fromStream, ...fromHooks]) {
    const known = agents.get(agent.id);
    if (!known) {
      agents.set(agent.id, agent);
      continue;
    }
    agents.set(agent.id, {
      ...known,
      ...(known.type === "subagent" && agent.type !== "subagent" ? { type: agent.type } : {}),
      ...(known.parent_tool_use_id ? {} : definedOnly({ parent_tool_use_id: agent.parent_tool_use_id })),
      ...(known.parent ? {} : definedOnly({ parent: agent.parent })),
    });
  }
  return [...agents.values()];
}

/**
 * Hook events whose tool_use_id was missing (`missing:...`) or absent (PermissionRequest) take the
 * id of the stream call with the same agent, tool and input.
 */
function backfillHookIds(
  streamEvents: RunEventInput[],
  hookEvents: RunEventInput[],
  note: (note: Omit<RunNote, "event_index">) => void,
): Map<string, string> {
  const hookIds = new Set(hookEvents.flatMap((event) => (event.type === "tool_call" ? [event.id] : [])));
  const candidates = streamEvents.filter(
    (event): event is Extract<RunEventInput, { type: "tool_call" }> =>
      event.type === "tool_call" && !hookIds.has(event.id),
  );
  const claimed = new Set<string>();
  const claimedRequests = new Set<string>();
  const renamed = new Map<string, string>();
  for (const event of hookEvents) {
    if (event.type !== "tool_call" || !event.id.startsWith("missing:")) continue;
    const json = stableJson(event.input);
    const match = candidates.find(
      (call) =>
        !claimed.has(call.id) &&
        call.agent === event.agent &&
        call.name === event.name &&
        stableJson(call.input) === json,
    );
    if (!match) continue;
    claimed.add(match.id);
    renamed.set(event.id, match.id);
    note({
      kind: "id_backfilled",
      message: `${event.name} hook events had no tool_use_id; took ${match.id} from the stream`,
      tool_use_id: match.id,
    });
  }
  for (let i = 0; i < hookEvents.length; i++) {
    const event = hookEvents[i]!;
    if ((event.type === "tool_call" || event.type === "tool_result") && renamed.has(event.id)) {
      hookEvents[i] = { ...event, id: renamed.get(event.id)! };
    } else if (event.type === "permission_request" && (!event.id || renamed.has(event.id))) {
      // A PermissionRequest payload has no tool_use_id: it belongs to the latest call before it
      // of the same agent, tool and input.
      const json = stableJson(event.input);
      const call = hookEvents
        .slice(0, i)
        .reverse()
        .find(
          (earlier) =>
            earlier.type === "tool_call" &&
            earlier.agent === event.agent &&
            earlier.name === event.tool_name &&
            stableJson(earlier.input) === json,
        ) as Extract<RunEventInput, { type: "tool_call" }> | undefined;
      // Without the call's PreToolUse (a capture of a few events), the stream's call of it.
      const id =
        call && !call.id.startsWith("missing:")
          ? call.id
          : !call
            ? streamCallFor(event, streamEvents, claimedRequests)
            : undefined;
      if (id) {
        claimedRequests.add(id);
        hookEvents[i] = { ...event, id };
      }
    }
  }
  return renamed;
}

/** The first stream call of the request's agent, tool and input that no other request took. */
function streamCallFor(
  request: Extract<RunEventInput, { type: "permission_request" }>,
  streamEvents: RunEventInput[],
  claimed: Set<string>,
): string | undefined {
  const json = stableJson(request.input);
  const call = streamEvents.find(
    (event) =>
      event.type === "tool_call" &&
      !claimed.has(event.id) &&
      event.agent === request.agent &&
      event.name === request.tool_name &&
      stableJson(event.input) === json,
  );
  return call?.type === "tool_call" ? call.id : undefined;
}

/**
 * Whether the capture's hooks fire for an event: a tool call needs PreToolUse for its tool, a
 * result PostToolUse (or PostToolUseFailure), a subagent SubagentStart/SubagentStop.
 */
function hooksExpected(
  coverage: HookCoverage | undefined,
  toolOf: (callId: string) => string | undefined,
): (event: RunEventInput) => boolean {
  if (!coverage) return () => true;
  const fires = (hook: string, tool?: string) => {
    if (!coverage.events.includes(hook)) return false;
    const matcher = coverage.toolMatcher?.[hook];
    return tool === undefined || !matcher || matcher === "*" || matcher.split("|").includes(tool);
  };
  return (event) => {
    switch (event.type) {
      case "tool_call":
        return fires("PreToolUse", event.name);
      case "tool_result": {
        // A result names its call by id only: the stream's call says which tool it was.
        const tool = toolOf(event.id);
        return fires("PostToolUse", tool) || fires("PostToolUseFailure", tool);
      }
      case "subagent_start":
        return fires("SubagentStart");
      case "subagent_stop":
        return fires("SubagentStop");
      default:
        return true;
    }
  };
}

/** Calls that never ran: denied by permissions (stream permission_denied events). */
function deniedCallIds(events: RunEventInput[]): Set<string> {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.type === "permission_denied" && event.id) ids.add(event.id);
    if (event.type === "final_result") {
      for (const denial of event.permission_denials ?? [])
        if (denial.tool_use_id) ids.add(denial.tool_use_id);
    }
  }
  return ids;
}

function describe(event: RunEventInput): string {
  switch (event.type) {
    case "tool_call":
      return `tool call ${event.name} (${event.id}, agent ${event.agent})`;
    case "tool_result":
      return `tool result of ${event.id} (agent ${event.agent})`;
    case "subagent_start":
      return `start of subagent ${event.agent_id}`;
    case "subagent_stop":
      return `end of subagent ${event.agent_id}`;
    default:
      return event.type;
  }
}

function idOf(event: RunEventInput): { tool_use_id?: string } {
  if (event.type === "tool_call" || event.type === "tool_result") return { tool_use_id: event.id };
  if (event.type === "subagent_start" && event.parent_tool_use_id)
    return { tool_use_id: event.parent_tool_use_id };
  return {};
}

function stripIndex(event: RunEvent): RunEventInput {
  const { index: _index, sources: _sources, ...rest } = event;
  return rest as RunEventInput;
}

function withoutIndex(note: RunNote): Omit<RunNote, "event_index"> {
  const { event_index: _index, ...rest } = note;
  return rest;
}

/** JSON with sorted keys, so inputs compare equal whatever their key order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
