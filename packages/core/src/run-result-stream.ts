import { closeSync, openSync, readSync } from "node:fs";
import { JSONParser } from "@streamparser/json";
import type { z } from "zod";
import { type AgentRunResult, AgentRunResultSchema } from "./agent-run.js";
import {
  type AgentInfoSchema,
  type RunEventInput,
  RunEventSchema,
  type RunNoteSchema,
  RunSchema,
} from "./run.js";
import type { RunMeta, RunSink } from "./run-builder.js";
import { RunFolderError } from "./run-folder.js";

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

/** The most JSON text one value of a result.json may take (an event, a field): a bigger one is refused. */
export const MAX_RESULT_VALUE_BYTES = 64 * 1024 * 1024;

const CHUNK_BYTES = 1024 * 1024;

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
class ProblemAt extends Error {
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a stored AgentRunResult (a run folder's result.json) into `sink`, one event at a time, each
 * checked by the Run schema: the run's meta, agents and notes as they come, its events pushed in
 * order, none kept here; the result's other fields are returned. So a long run's result is graded in
 * bounded memory (@streamparser/json parses the text piece by piece). Throws a RunFolderError
 * naming the file and the field (or byte) of what is not valid JSON or not a valid result, or of a
 * value (an event, a field) of more than `options.maxValueBytes` (default MAX_RESULT_VALUE_BYTES).
 */
export function runResultInto(
  file: string,
  sink: RunSink,
  options: { maxValueBytes?: number } = {},
): RunResultRead {
  try {
    return readInto(file, sink, options.maxValueBytes ?? MAX_RESULT_VALUE_BYTES);
  } catch (error) {
    if (error instanceof ProblemAt) throw new RunFolderError(`${file} (${error.where})`, error.message);
    throw error;
  }
}

function readInto(file: string, sink: RunSink, maxValueBytes: number): RunResultRead {
  const fields: Record<string, unknown> = {};
  let inOrder = true;
  let events = 0;
  let hasRun = false;
  /** Whether run.events has ended (its last event read). */
  let hasEvents = false;
  /** The run's fields read: the schema requires some. */
  const runFields = new Set<string>();
  /** Where a problem is: in run.events, the event being read; else the byte. */
  const here = (byte: number) => (events > 0 && !hasEvents ? `field run.events.${events}` : `byte ${byte}`);
  // Bytes fed to the parser, and where the last value it gave ended: one value's text is what lies between.
  let fed = 0;
  let lastValueAt = 0;
  const parser = new JSONParser({
    // Each event of run.events; each field of the run (meta, agents, notes) as it ends, before its
    // events; each field of the result. Events are dropped from their array as they come (the parser
    // keeps an emitted value's parent whole while an ancestor is still to be emitted).
    paths: ["$.run.events.*", "$.run.*", "$.*"],
    keepStack: false,
  });
  parser.onValue = ({ value, key, parent, stack }) => {
    lastValueAt = fed;
    if (stack.length === 3) {
      // An element of run.events (the only path three deep).
      if (Array.isArray(parent)) parent.length = 0;
      const event = checked(RunEventSchema, value, `run.events.${events}`);
      if (event.index !== events) inOrder = false;
      events++;
      sink.push(event as RunEventInput);
      return;
    }
    if (stack.length === 2) {
      if (stack[1]?.key !== "run") return;
      runField(String(key), value);
      return;
    }
    if (stack.length !== 1) return;
    if (key === "run") {
      if (!value || typeof value !== "object" || Array.isArray(value))
        throw new ProblemAt("field run", "not a valid AgentRunResult: run is not an object");
      hasRun = true;
      return;
    }
    fields[String(key)] = value;
  };

  /** A field of the run, handed to the sink (events come one by one, above). */
  const runField = (key: string, value: unknown) => {
    const shape = RunSchema.shape as Record<string, z.ZodType>;
    runFields.add(key);
    if (key === "events") {
      hasEvents = true;
      return;
    }
    if (!(key in shape)) return;
    const field = checked(shape[key] as z.ZodType, value, `run.${key}`);
    if (key === "agents") {
      if (events > 0) inOrder = false;
      for (const agent of field as z.infer<typeof AgentInfoSchema>[]) sink.agent(agent);
    } else if (key === "notes") {
      for (const note of field as z.infer<typeof RunNoteSchema>[]) sink.note(note);
    } else if (META_FIELDS.has(key)) {
      if (events > 0) inOrder = false;
      (sink.meta as Record<string, unknown>)[key] = field;
    }
    // version is checked by its schema; sources say what the run was built from, not what it did.
  };

  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let first = true;
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      let chunk = buffer.subarray(0, read);
      // A byte order mark is no JSON (JSON.parse of the whole file is given the text without it).
      if (first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
      first = false;
      writeTo(parser, chunk, () => here(fed));
      fed += chunk.length;
      if (fed - lastValueAt > maxValueBytes)
        throw new ProblemAt(
          here(lastValueAt),
          `one value of more than ${mib(maxValueBytes)} of JSON text (from byte ${lastValueAt}), more than a stored run's value holds`,
        );
    }
  } finally {
    closeSync(fd);
  }
  if (!parser.isEnded) {
    throw new ProblemAt(
      here(fed),
      `not valid JSON: the file ends in the middle of the result (cut off after ${fed} bytes)`,
    );
  }
  const missing = hasRun
    ? ["version", "sources", "agents", "events"].find((key) => !runFields.has(key))
    : undefined;
  if (!hasRun || missing)
    throw new ProblemAt(
      `field ${hasRun ? `run.${missing}` : "run"}`,
      "not a valid AgentRunResult: a required field is missing",
    );
  const rest = AgentRunResultSchema.omit({ run: true }).safeParse(fields);
  if (!rest.success) {
    const issue = rest.error.issues[0];
    throw new ProblemAt(
      `field ${issue?.path.map(String).join(".") || "(root)"}`,
      `not a valid AgentRunResult: ${issue?.message ?? "invalid"}`,
    );
  }
  return { fields: { ...fields, ...rest.data } as RunResultFields, inOrder };
}

function mib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes} bytes`;
}

/** Feeds `chunk` to the parser; what it cannot parse is a ProblemAt at the current field. */
function writeTo(parser: JSONParser, chunk: Uint8Array, field: () => string): void {
  try {
    parser.write(chunk);
  } catch (error) {
    if (error instanceof ProblemAt) throw error;
    throw new ProblemAt(field(), `not valid JSON: ${(error as Error).message}`);
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
