// What reading a stored AgentRunResult (result.json) piece by piece hands on: its run's fields to a
// RunSink, its events one at a time, each checked by the Run schema. Both readers of result.json
// (run-result-layout.ts, run-result-stream.ts) cut the text into pieces and give them to this.
import { readSync } from "node:fs";
import { z } from "zod";
import { type AgentRunResult, AgentRunResultSchema } from "./agent-run.js";
import {
  type AgentInfoSchema,
  type RunEvent,
  type RunEventInput,
  RunEventSchema,
  type RunNoteSchema,
  RunSchema,
} from "./run.js";
import type { RunMeta, RunSink } from "./run-builder.js";

/** A stored AgentRunResult without its run: exit code, timeout, origin, and what else the runner kept. */
export type RunResultFields = Omit<AgentRunResult, "run"> & Record<string, unknown>;

/** What reading a result.json into a sink found beside the run's events. */
export interface RunResultRead {
  /** The result's other fields, checked by AgentRunResultSchema (fields beyond it kept, as readRunFolder keeps them). */
  fields: RunResultFields;
  /**
   * False when the file gave a run's fact (a meta field, an agent) after its first event, or an
   * event an index other than its place: written in the order JSON.stringify writes a Run, it never
   * does. A sink graded as it was filled then saw less than the whole run tells: read it whole.
   */
  inOrder: boolean;
}

/** The run's facts besides its events, agents and notes: the fields of RunMeta. */
const META_FIELDS = new Set<string>([
  "id",
  "session_id",
  "cwd",
  "model",
  "claude_version",
  "agent",
  "agent_version",
  "tools",
  "skills",
  "instructions",
] satisfies (keyof RunMeta)[]);

/** What is wrong with the file, and where: `field run.events.12.input`, or `byte 1234`. */
export class ProblemAt extends Error {
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(message);
  }
}

let compiledRunEvent: z.ZodType<RunEvent> | undefined;

/**
 * The Run schema's check of one event, compiled: a valid event (all but a broken file's) takes zod's
 * generated fast path, about three times quicker than the schema's own walk, which a 1M-event run
 * feels; an invalid one falls back to that walk, so the problem named is the same. Compiled on first
 * use, not when core is imported: generating it takes milliseconds every process would pay.
 */
function runEventCheck(): z.ZodType<RunEvent> {
  compiledRunEvent ??= z.compile(RunEventSchema);
  return compiledRunEvent;
}

/** Takes a result.json's values as a reader finds them, hands the run's to the sink, and checks them. */
export class RunResultPieces {
  /** The events handed on so far. */
  events = 0;
  private readonly fields: Record<string, unknown> = {};
  private inOrder = true;
  private hasRun = false;
  /** Whether run.events has ended (its last event read). */
  private hasEvents = false;
  /** The run's fields read: the schema requires some. */
  private readonly runFields = new Set<string>();

  constructor(private readonly sink: RunSink) {}

  /** Where a problem is: in run.events, the event being read; else `fallback` (a byte). */
  where(fallback: string): string {
    return this.events > 0 && !this.hasEvents ? `field run.events.${this.events}` : fallback;
  }

  /** The next element of run.events. */
  event(value: unknown): void {
    const event = checked(runEventCheck(), value, `run.events.${this.events}`);
    if (event.index !== this.events) this.inOrder = false;
    this.events++;
    this.sink.push(event as RunEventInput);
  }

  /** A field of the run other than an event (`events` itself says the events have ended). */
  runField(key: string, value: unknown): void {
    const shape = RunSchema.shape as Record<string, z.ZodType>;
    this.runFields.add(key);
    if (key === "events") {
      this.hasEvents = true;
      return;
    }
    if (!(key in shape)) return;
    const field = checked(shape[key] as z.ZodType, value, `run.${key}`);
    if (key === "agents") {
      if (this.events > 0) this.inOrder = false;
      for (const agent of field as z.infer<typeof AgentInfoSchema>[]) this.sink.agent(agent);
    } else if (key === "notes") {
      for (const note of field as z.infer<typeof RunNoteSchema>[]) this.sink.note(note);
    } else if (META_FIELDS.has(key)) {
      if (this.events > 0) this.inOrder = false;
      (this.sink.meta as Record<string, unknown>)[key] = field;
    }
    // version is checked by its schema; sources say what the run was built from, not what it did.
  }

  /** A field of the result; `run` once the run's own fields have been given. */
  resultField(key: string, value: unknown): void {
    if (key !== "run") {
      this.fields[key] = value;
      return;
    }
    if (!value || typeof value !== "object" || Array.isArray(value))
      throw new ProblemAt("field run", "not a valid AgentRunResult: run is not an object");
    this.hasRun = true;
  }

  /** The result's other fields, once the whole file is read; a ProblemAt for what it lacks. */
  finish(): RunResultRead {
    const missing = this.hasRun
      ? ["version", "sources", "agents", "events"].find((key) => !this.runFields.has(key))
      : undefined;
    if (!this.hasRun || missing)
      throw new ProblemAt(
        `field ${this.hasRun ? `run.${missing}` : "run"}`,
        "not a valid AgentRunResult: a required field is missing",
      );
    const rest = AgentRunResultSchema.omit({ run: true }).safeParse(this.fields);
    if (!rest.success) {
      const issue = rest.error.issues[0];
      throw new ProblemAt(
        `field ${issue?.path.map(String).join(".") || "(root)"}`,
        `not a valid AgentRunResult: ${issue?.message ?? "invalid"}`,
      );
    }
    return { fields: { ...this.fields, ...rest.data } as RunResultFields, inOrder: this.inOrder };
  }
}

/** `value` checked by `schema`; a ProblemAt naming the field of the first problem. */
function checked<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = [field, ...(issue?.path.map(String) ?? [])].join(".");
  throw new ProblemAt(`field ${path}`, `not a valid AgentRunResult: ${issue?.message ?? "invalid"}`);
}

function mib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes} bytes`;
}

/** One value (from the file's byte `at`) longer than `maxValueBytes` of JSON text. */
export function valueTooLong(where: string, maxValueBytes: number, at: number): ProblemAt {
  return new ProblemAt(
    where,
    `one value of more than ${mib(maxValueBytes)} of JSON text (from byte ${at}), more than a stored run's value holds`,
  );
}

/** A file that ends (after `bytes`) before the result does. */
export function cutOff(where: string, bytes: number): ProblemAt {
  return new ProblemAt(
    where,
    `not valid JSON: the file ends in the middle of the result (cut off after ${bytes} bytes)`,
  );
}

const CHUNK_BYTES = 1024 * 1024;

/**
 * The bytes of `fd` to its end, a chunk at a time with the file's byte it starts at; a leading byte
 * order mark (no JSON) is left out. The chunk's buffer is reused: copy what is kept.
 */
export function* fileChunks(fd: number): Generator<{ chunk: Buffer; at: number }> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  for (let at = 0; ; ) {
    const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
    if (read === 0) return;
    const bom = at === 0 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
    yield { chunk: buffer.subarray(bom, read), at: at + bom };
    at += read;
  }
}
