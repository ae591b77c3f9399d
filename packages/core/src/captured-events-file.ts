import { type CapturedEvent, CapturedEventSchema } from "./captured-event.js";
import { limitDepth, MAX_EVENT_DEPTH } from "./event-depth.js";
import { RAW_CAPTURED_EVENT_VERSION } from "./format-version.js";
import {
  endsWithNewline,
  JsonlLineError,
  readTextLines,
  reportTruncated,
  truncatedLineError,
} from "./jsonl-reader.js";

/**
 * Reading `events.jsonl` in both of its forms: version 1 lines (the Node hook validated the input
 * and cut large fields) and version 2 lines (the shell hook appended the input as Claude Code sent
 * it). Normalizing the raw form happens here, at read time: its input is checked, and anything
 * nested deeper than MAX_EVENT_DEPTH is cut, so later JSON.stringify calls cannot overflow the stack.
 */

/** A line of the raw form whose input was not a hook input (the shell hook does not parse it). */
export interface BadCapturedInput {
  file: string;
  line: number;
  run_id?: string;
  pid?: number;
  message: string;
  /** The first bytes of the input. */
  input_head: string;
}

export interface ReadCapturedEventsOptions {
  /** "throw" (default): a bad line throws a JsonlLineError; "skip": it goes to `onBadLine`. */
  onError?: "throw" | "skip";
  onBadLine?: (error: JsonlLineError) => void;
  /** Raw lines whose input was not a hook input; they are never events. */
  onBadInput?: (problem: BadCapturedInput) => void;
  /** Default MAX_EVENT_DEPTH. */
  maxDepth?: number;
  /** A cut-off last line (the writer was killed mid-line): left out and reported (see readJsonlFile). */
  onTruncatedLine?: (error: JsonlLineError) => void;
}

/** The start of every raw line, as the shell hook writes it. */
const RAW_PREFIX =
  /^\{"version":2,"captured_at":"([^"\\]*)","run_id":"([A-Za-z0-9._-]*)","seq":(\d+),"pid":(\d+),"event":/;

/**
 * Every event of an `events.jsonl`, both forms, validated, depth-limited, in `seq` order (lines
 * with the same seq keep their file order). Raw lines whose input is not a hook input go to
 * `onBadInput` (the Node hook logs those to hook-errors.log instead of writing them).
 */
export async function readCapturedEvents(
  file: string,
  options: ReadCapturedEventsOptions = {},
): Promise<CapturedEvent[]> {
  const lines = readTextLines(file);
  const events: CapturedEvent[] = [];
  const fail = (error: JsonlLineError) => {
    if (options.onError === "skip") options.onBadLine?.(error);
    else throw error;
  };
  let number = 0;
  // A line that is not JSON is a cut-off last line if nothing follows it and no newline ends it.
  let unparsable: JsonlLineError | undefined;
  try {
    for await (const text of lines) {
      number++;
      if (text.trim() === "") continue;
      if (unparsable) fail(unparsable);
      unparsable = undefined;
      const result = parseCapturedEventLine(text, file, number, options.maxDepth);
      if ("event" in result) events.push(result.event);
      else if ("badInput" in result) options.onBadInput?.(result.badInput);
      else if (result.notJson) unparsable = result.error;
      else fail(result.error);
    }
    if (unparsable) {
      if (endsWithNewline(file)) fail(unparsable);
      else reportTruncated(truncatedLineError(file, unparsable.line), options);
    }
  } finally {
    await lines.return(undefined);
  }
  // Array.prototype.sort is stable.
  return events.sort((a, b) => a.seq - b.seq);
}

/** One line of events.jsonl: an event, a raw line whose input was bad, or a bad line. */
export function parseCapturedEventLine(
  text: string,
  file: string,
  line: number,
  maxDepth = MAX_EVENT_DEPTH,
): { event: CapturedEvent } | { badInput: BadCapturedInput } | { error: JsonlLineError; notJson?: true } {
  const raw = RAW_PREFIX.exec(text);
  const badInput = (message: string) => ({
    badInput: {
      file,
      line,
      ...(raw ? { run_id: raw[2] as string, pid: Number(raw[4]) } : {}),
      message,
      input_head: text.slice(raw ? raw[0].length : 0, (raw ? raw[0].length : 0) + 200),
    },
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    if (raw) return badInput(`the hook input is not JSON: ${(error as Error).message}`);
    return {
      error: new JsonlLineError(file, line, `invalid JSON: ${(error as Error).message}`),
      notJson: true,
    };
  }
  const record = json as Record<string, unknown> | null;
  // An input that is not JSON could close the event early and add envelope fields of its own.
  if (
    raw &&
    (record?.version !== RAW_CAPTURED_EVENT_VERSION ||
      record.captured_at !== raw[1] ||
      record.run_id !== raw[2] ||
      record.seq !== Number(raw[3]) ||
      record.pid !== Number(raw[4]))
  ) {
    return badInput("the hook input is not a single JSON object (it overrode the line's fields)");
  }
  if (record?.version === RAW_CAPTURED_EVENT_VERSION) {
    const event = record.event as Record<string, unknown> | null;
    if (event === null || typeof event !== "object" || Array.isArray(event)) {
      return badInput("the hook input is not a JSON object");
    }
    if (typeof event.hook_event_name !== "string" || event.hook_event_name === "") {
      return badInput("the hook input has no hook_event_name");
    }
  }
  const cut =
    record !== null && typeof record === "object" && typeof record.event === "object"
      ? limitDepth(record.event, maxDepth)
      : [];
  const result = CapturedEventSchema.safeParse(json);
  if (!result.success) {
    // A JSON object with an event name: kept, as the Node hook keeps it, and reported like its lines.
    const issue = result.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : undefined;
    return { error: new JsonlLineError(file, line, issue?.message ?? "invalid line", field) };
  }
  const event = result.data;
  if (cut.length > 0) event.truncated = [...(event.truncated ?? []), ...cut];
  return { event };
}
