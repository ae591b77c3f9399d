import type { Run, RunEvent } from "@evals/core";
import type { CaseResult, CaseViolation, TrialResult } from "./case-result.js";
import { countViolations, failureSummary } from "./case-summary.js";
import { caseOrigin, originLabel, paidFor } from "./origin.js";
import type { ResultsFile } from "./results-file.js";
import { describeToolInput, errorEnding, outputText } from "./run-format.js";
import { buildSessionTree, isoToMs, type SessionNode } from "./session-tracker.js";

/**
 * The data the HTML report embeds, shaped for the page: a small index of every case (parsed when
 * the page opens) and, per case, its details and timelines (parsed only when the case is opened).
 * Long texts are cut to `maxTextChars` so one huge tool output cannot bloat the file.
 */

export interface ReportIndex {
  title: string;
  meta: ResultsFile["meta"];
  summary: ResultsFile["summary"];
  byTag: ResultsFile["by_tag"];
  bySuite: ResultsFile["by_suite"];
  cases: CaseRow[];
}

/** One line of the case table. */
export interface CaseRow {
  /** Position in the report; the details live in the script element `case-<n>`. */
  n: number;
  id: string;
  name: string;
  suite: string;
  tags: string[];
  status: CaseResult["status"];
  /** Mean of the scorers' scores (0..1), or null without scorers. */
  score: number | null;
  scores: CaseResult["scores"];
  trials: number;
  trialsPassed: number;
  /** Verdict of each trial, in order ("passed", "failed", ...). */
  trialStatus: string[];
  /** Counts by severity; the violations the case expected are counted apart. */
  violations: { error: number; warning: number; info: number; expected: number };
  durationMs: number;
  /** What was spent on the case's runs in this eval run (null for replayed runs: nothing was). */
  costUsd: number | null;
  /** "replayed" (or "stored") when the case's runs were not live; see caseOrigin. */
  origin?: string;
  why: string;
}

export interface CaseDetail {
  description?: string;
  file?: string;
  error?: string;
  stats: CaseResult["stats"] | null;
  violations: ViolationView[];
  trials: TrialView[];
}

export interface ViolationView {
  severity: CaseViolation["severity"];
  rule: string;
  type: string;
  message: string;
  /** The case expected this violation: it does not count against the case. */
  expected?: boolean;
  scorer?: string;
  trial: number;
  agent?: string;
  /** Key of the timeline item it points at ("e<event index>" or "a<agent id>"), when found. */
  target?: string;
  evidence?: string;
}

export interface TrialView {
  trial: number;
  status: TrialResult["status"];
  scores: TrialResult["scores"];
  durationMs: number | null;
  /** What the run cost in this eval run; null when it was replayed (see recordedCostUsd). */
  costUsd: number | null;
  /** What the recording of a replayed or stored run says it cost (not spent in this eval run). */
  recordedCostUsd: number | null;
  error?: string;
  runId?: string;
  /** "live", "replayed" or "stored" (see originLabel). */
  origin?: string;
  /** The run's model; for a replayed run, the model of its recording. */
  model?: string;
  /** The run was not live: its model and costs are the recording's. */
  replayed: boolean;
  /** The main agent with its subagents nested where they were delegated; null when the run was not kept. */
  timeline: AgentView | null;
  /** Total span of the run's timestamps, for the waterfall bars. */
  spanMs: number | null;
  sessions: number;
  maxDepth: number;
}

export interface AgentView {
  key: string;
  id: string;
  type: string;
  depth: number;
  durationMs: number | null;
  toolCalls: number;
  toolErrors: number;
  costUsd: number | null;
  prompt?: string;
  lastMessage?: string;
  items: ItemView[];
  /** Indexes into CaseDetail.violations that point at this agent as a whole. */
  v?: number[];
}

export type ItemView =
  | { k: "user" | "text"; key: string; i: number; text: string; v?: number[] }
  | {
      k: "call";
      key: string;
      i: number;
      id: string;
      name: string;
      summary: string;
      /** The input as compact JSON (cut to the limit). */
      input: string;
      output: string;
      status: "ok" | "error" | "denied" | "incomplete";
      durationMs: number | null;
      /** Start, in ms from the run's first timestamp. */
      at: number | null;
      child?: AgentView;
      v?: number[];
    }
  | { k: "denied"; key: string; i: number; tool: string; message: string; v?: number[] }
  | {
      k: "final";
      key: string;
      i: number;
      subtype: string;
      isError: boolean;
      /** Why an error result ended the run (see errorEnding), when it says more than "success". */
      why?: string;
      turns: number | null;
      costUsd: number | null;
      durationMs: number | null;
      text: string;
      v?: number[];
    };

export interface HtmlDataOptions {
  title?: string;
  /** Longest text kept per tool input, output or message (default 4,000 characters). */
  maxTextChars?: number;
}

export function reportIndex(results: ResultsFile, options: HtmlDataOptions = {}): ReportIndex {
  return {
    title: options.title ?? `Evals · ${results.meta.suite}`,
    meta: results.meta,
    summary: results.summary,
    byTag: results.by_tag,
    bySuite: results.by_suite,
    cases: results.cases.map((c, n) => caseRow(c, n, results.meta.suite)),
  };
}

function caseRow(c: CaseResult, n: number, defaultSuite: string): CaseRow {
  const violations = countViolations(c.violations);
  const origin = caseOrigin(c);
  return {
    n,
    id: c.id,
    name: c.name,
    suite: c.suite ?? defaultSuite,
    tags: c.tags,
    status: c.status,
    score: c.scores.length === 0 ? null : c.scores.reduce((sum, s) => sum + s.score, 0) / c.scores.length,
    scores: c.scores,
    trials: c.trials.length,
    trialsPassed: c.trials.filter((t) => t.status === "passed").length,
    trialStatus: c.trials.map((t) => t.status),
    violations,
    durationMs: c.duration_ms,
    costUsd: c.cost_usd ?? null,
    ...(origin ? { origin } : {}),
    why: failureSummary(c),
  };
}

export function caseDetail(c: CaseResult, options: HtmlDataOptions = {}): CaseDetail {
  const max = options.maxTextChars ?? 4000;
  const violations: ViolationView[] = c.violations.map((v) => ({
    severity: v.severity,
    rule: v.rule,
    type: v.type,
    message: cut(v.message, max),
    ...(v.expected ? { expected: true } : {}),
    ...(v.scorer ? { scorer: v.scorer } : {}),
    trial: v.trial ?? 0,
    ...(v.pointer?.agent ? { agent: v.pointer.agent } : {}),
    ...(v.evidence !== undefined ? { evidence: cut(safeJson(v.evidence), max) } : {}),
  }));
  const trials = c.trials.map((trial) => trialView(trial, c.violations, violations, max));
  return {
    ...(c.description ? { description: c.description } : {}),
    ...(c.file ? { file: c.file } : {}),
    ...(c.error ? { error: cut(c.error, max) } : {}),
    stats: c.stats ?? null,
    violations,
    trials,
  };
}

function trialView(
  trial: TrialResult,
  sources: CaseViolation[],
  violations: ViolationView[],
  max: number,
): TrialView {
  const view: TrialView = {
    trial: trial.trial,
    status: trial.status,
    scores: trial.scores,
    durationMs: trial.duration_ms ?? null,
    costUsd: trial.cost_usd ?? null,
    recordedCostUsd: trial.recorded_cost_usd ?? null,
    ...(trial.error ? { error: cut(trial.error, max) } : {}),
    ...(trial.run_id ? { runId: trial.run_id } : {}),
    ...(trial.origin ? { origin: originLabel(trial.origin) } : {}),
    ...(trial.run?.model ? { model: trial.run.model } : {}),
    replayed: !paidFor(trial),
    timeline: null,
    spanMs: null,
    sessions: 0,
    maxDepth: 0,
  };
  if (!trial.run) return view;
  const built = timelineOf(trial.run, max);
  // A replayed run's costs are its recording's: the timeline shows none.
  if (view.replayed) withoutCosts(built.root);
  view.timeline = built.root;
  view.spanMs = built.spanMs;
  view.sessions = built.sessions;
  view.maxDepth = built.maxDepth;
  // Attach this trial's violations to the item they point at.
  violations.forEach((violation, index) => {
    if (violation.trial !== trial.trial) return;
    const pointer = sources[index]?.pointer;
    const target =
      (pointer?.event_index !== undefined ? built.byEvent.get(pointer.event_index) : undefined) ??
      (pointer?.tool_use_id ? built.byCall.get(pointer.tool_use_id) : undefined) ??
      (pointer?.agent ? built.byAgent.get(pointer.agent) : undefined);
    if (!target) return;
    violation.target = target.key;
    target.v ??= [];
    if (!target.v.includes(index)) target.v.push(index);
  });
  return view;
}

interface BuiltTimeline {
  root: AgentView;
  spanMs: number | null;
  sessions: number;
  maxDepth: number;
  /** Event index -> the item showing it (a tool_result maps to its call). */
  byEvent: Map<number, { key: string; v?: number[] }>;
  byCall: Map<string, { key: string; v?: number[] }>;
  byAgent: Map<string, AgentView>;
}

/** The run as nested agent lanes: each subagent sits inside the Agent/Task call that started it. */
export function timelineOf(run: Run, maxTextChars = 4000): BuiltTimeline {
  const tree = buildSessionTree(run);
  const byAgent = new Map<string, AgentView>();
  const byEvent = new Map<number, { key: string; v?: number[] }>();
  const byCall = new Map<string, { key: string; v?: number[] }>();
  const callItems = new Map<string, Extract<ItemView, { k: "call" }>>();
  const times = run.events.map((e) => (e.timestamp ? isoToMs(e.timestamp) : Number.NaN));
  let t0: number | null = null;
  let t1: number | null = null;
  for (const t of times) {
    if (Number.isNaN(t)) continue;
    if (t0 === null || t < t0) t0 = t;
    if (t1 === null || t > t1) t1 = t;
  }

  const agentView = (node: SessionNode): AgentView => {
    const view: AgentView = {
      key: `a${node.id}`,
      id: node.id,
      type: node.type,
      depth: node.depth,
      durationMs: node.durationMs ?? null,
      toolCalls: node.toolCalls,
      toolErrors: node.toolErrors,
      costUsd: node.costUsd ?? null,
      ...(node.prompt ? { prompt: cut(node.prompt, maxTextChars) } : {}),
      ...(node.lastMessage ? { lastMessage: cut(node.lastMessage, maxTextChars) } : {}),
      items: [],
    };
    byAgent.set(node.id, view);
    return view;
  };
  for (const node of tree.sessions) agentView(node);
  const lane = (agent: string) => byAgent.get(agent) ?? byAgent.get("main")!;

  const denied = new Map<string, string>();
  for (const event of run.events) {
    if (event.type === "permission_denied" && event.id) denied.set(event.id, event.message ?? "");
  }

  for (const event of run.events) {
    const item = itemFor(event);
    if (item) {
      lane(event.agent).items.push(item);
      byEvent.set(event.index, item);
    }
  }
  // Nest each subagent's lane in the call that started it, else show it where it started.
  for (const node of tree.sessions) {
    if (node.depth === 0) continue;
    const view = byAgent.get(node.id)!;
    const call = node.parentToolUseId ? callItems.get(node.parentToolUseId) : undefined;
    if (call && !call.child) {
      call.child = view;
      continue;
    }
    const items = lane(node.parent ?? "main").items;
    const at = items.findIndex((item) => item.i > node.firstEventIndex);
    items.splice(at === -1 ? items.length : at, 0, {
      k: "call",
      key: `s${node.id}`,
      i: node.firstEventIndex,
      id: node.parentToolUseId ?? "",
      name: "Agent",
      summary: node.type,
      input: "{}",
      output: "",
      status: node.status === "finished" ? "ok" : "incomplete",
      durationMs: node.durationMs ?? null,
      at: null,
      child: view,
    });
  }
  return {
    root: byAgent.get("main")!,
    spanMs: t0 !== null && t1 !== null ? t1 - t0 : null,
    sessions: tree.totalSessions,
    maxDepth: tree.maxDepth,
    byEvent,
    byCall,
    byAgent,
  };

  function itemFor(event: RunEvent): ItemView | undefined {
    const key = `e${event.index}`;
    switch (event.type) {
      case "user_message":
      case "assistant_text":
        if (!event.text.trim()) return undefined;
        return {
          k: event.type === "user_message" ? "user" : "text",
          key,
          i: event.index,
          text: cut(event.text, maxTextChars),
        };
      case "tool_call": {
        const ms = times[event.index]!;
        const item: Extract<ItemView, { k: "call" }> = {
          k: "call",
          key,
          i: event.index,
          id: event.id,
          name: event.name,
          summary: cut(describeToolInput(event.name, event.input), 300),
          input: cut(safeJson(event.input), maxTextChars),
          output: "",
          status: denied.has(event.id) ? "denied" : "incomplete",
          durationMs: null,
          at: t0 !== null && !Number.isNaN(ms) ? ms - t0 : null,
        };
        callItems.set(event.id, item);
        byCall.set(event.id, item);
        return item;
      }
      case "tool_result": {
        const call = callItems.get(event.id);
        if (!call) return undefined;
        const text = event.is_error ? (event.error ?? outputText(event.output)) : outputText(event.output);
        call.output = cut(text, maxTextChars);
        if (call.status !== "denied") call.status = event.is_error ? "error" : "ok";
        const ms = times[event.index]!;
        call.durationMs =
          event.duration_ms ??
          (call.at !== null && t0 !== null && !Number.isNaN(ms) ? ms - t0 - call.at : null);
        byEvent.set(event.index, call);
        return undefined;
      }
      case "permission_denied": {
        const call = event.id ? callItems.get(event.id) : undefined;
        if (call) {
          call.status = "denied";
          if (!call.output) call.output = cut(event.message ?? "denied", maxTextChars);
          byEvent.set(event.index, call);
          return undefined;
        }
        return {
          k: "denied",
          key,
          i: event.index,
          tool: event.tool_name,
          message: cut(event.message ?? "", maxTextChars),
        };
      }
      case "final_result":
        return {
          k: "final",
          key,
          i: event.index,
          subtype: event.subtype,
          isError: event.is_error,
          ...(event.is_error && errorEnding(event) ? { why: errorEnding(event) } : {}),
          turns: event.num_turns ?? null,
          costUsd: event.total_cost_usd ?? null,
          durationMs: event.duration_ms ?? null,
          text: cut(event.result ?? "", maxTextChars),
        };
      default:
        return undefined;
    }
  }
}

/** An agent lane and everything nested in it, without the run's costs. */
function withoutCosts(agent: AgentView): void {
  agent.costUsd = null;
  for (const item of agent.items) {
    if (item.k === "final") item.costUsd = null;
    if (item.k === "call" && item.child) withoutCosts(item.child);
  }
}

/** Text cut to `max` characters, saying how much was left out. */
export function cut(text: string, max: number): string {
  const shown = textPrefix(text, max);
  if (shown.length === text.length) return text;
  return `${shown}… (${(text.length - shown.length).toLocaleString("en")} more characters)`;
}

/**
 * `text`'s first `max` UTF-16 code units, one fewer when the last would be the first half of a
 * surrogate pair (an emoji): never a lone half, which is not text. Cut before escaping, so never
 * inside an entity.
 */
export function textPrefix(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
