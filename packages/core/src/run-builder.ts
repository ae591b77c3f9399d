import { RUN_VERSION } from "./format-version.js";
import {
  type AgentInfo,
  MAIN_AGENT,
  type Run,
  type RunEventInput,
  type RunNote,
  type RunSource,
} from "./run.js";

/**
 * The `index` an event may be pushed with, before the builder numbers it: an event made with its
 * index slot keeps every field in the object itself (V8 puts a field added later, as the index is,
 * in a property array of its own: about 30 bytes more for each event of a long run).
 */
export const UNNUMBERED = -1;

/** A run's facts besides its events, agents and notes (id, cwd, model, tools, skills, instructions...). */
export type RunMeta = Pick<
  Run,
  | "id"
  | "session_id"
  | "cwd"
  | "model"
  | "claude_version"
  | "agent"
  | "agent_version"
  | "tools"
  | "skills"
  | "instructions"
>;

/**
 * What an edge translator writes a run into, event by event: a RunBuilder (the whole Run in memory),
 * or a consumer that grades the events as they come and keeps only what it needs.
 */
export interface RunSink {
  /** The run's facts (id, cwd, model...), filled in as the source tells them. */
  meta: RunMeta;
  push(event: RunEventInput): void;
  note(note: RunNote): void;
  /** Registers an agent, keeping what was known before and adding what is new. */
  agent(info: AgentInfo): void;
  hasAgent(id: string): boolean;
}

/**
 * Collects events and agents while a source is being read, then numbers the events into a Run.
 * Every edge translator (stream-json, hooks, transcripts, cassettes) builds its Run through this.
 */
export class RunBuilder implements RunSink {
  readonly events: RunEventInput[] = [];
  readonly notes: RunNote[] = [];
  private readonly agents = new Map<string, AgentInfo>([[MAIN_AGENT, { id: MAIN_AGENT, type: "main" }]]);
  meta: RunMeta = {};

  constructor(readonly sources: RunSource[]) {}

  push(event: RunEventInput): void {
    this.events.push(event);
  }

  note(note: RunNote): void {
    this.notes.push(note);
  }

  agent(info: AgentInfo): void {
    this.agents.set(info.id, mergeAgent(this.agents.get(info.id), info));
  }

  hasAgent(id: string): boolean {
    return this.agents.has(id);
  }

  build(): Run {
    return {
      version: RUN_VERSION,
      ...definedOnly(this.meta),
      sources: this.sources,
      agents: [...this.agents.values()],
      events: this.numberedEvents(),
      notes: this.notes,
    };
  }

  /**
   * The pushed events numbered in place: a copy of each (`{ ...event, index }`) gave every event of a
   * long run a hidden class of its own in V8, doubling the Run's memory. An event pushed twice is
   * copied, so each position keeps its own index.
   */
  private numberedEvents(): Run["events"] {
    return this.events.map((pushed, index) => {
      const event = pushed as RunEventInput & { index?: number };
      if (event.index !== undefined && event.index !== UNNUMBERED && event.index !== index)
        return { ...event, index } as Run["events"][number];
      event.index = index;
      return event as Run["events"][number];
    });
  }
}

/** An agent's info after `info` is registered again: what was known, and what is new. */
export function mergeAgent(known: AgentInfo | undefined, info: AgentInfo): AgentInfo {
  return { ...info, ...known, ...definedOnly(info) };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
