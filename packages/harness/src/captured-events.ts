import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type CapturedEvent,
  CapturedEventSchema,
  type HookInput,
  type RunNote,
  readJsonl,
} from "@evals/core";

/** What the capture hook wrote for one run, ordered by `seq`, with lines it could not read noted. */
export interface CapturedEvents {
  events: HookInput[];
  timestamps: string[];
  notes: RunNote[];
  /** Whether events.jsonl existed at all. */
  found: boolean;
}

/** The file the capture hook appends to: `<outputDir>/events.jsonl`. */
export function eventsFile(outputDir: string): string {
  return join(outputDir, "events.jsonl");
}

/** Reads `<outputDir>/events.jsonl` (bad lines become parse_error notes, never a thrown error). */
export async function readCapturedEvents(outputDir: string): Promise<CapturedEvents> {
  const file = eventsFile(outputDir);
  if (!existsSync(file)) return { events: [], timestamps: [], notes: [], found: false };
  const records: CapturedEvent[] = [];
  const notes: RunNote[] = [];
  for await (const record of readJsonl(file, {
    schema: CapturedEventSchema,
    onError: "skip",
    onBadLine: (error) => notes.push({ kind: "parse_error", message: error.message }),
  })) {
    records.push(record.value);
  }
  // Hook processes run concurrently: the file order is not the event order, `seq` is.
  records.sort((a, b) => a.seq - b.seq);
  return {
    events: records.map((record) => record.event),
    timestamps: records.map((record) => record.captured_at),
    notes,
    found: true,
  };
}
