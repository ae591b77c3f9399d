// result.json as the project writes it (writeRunFolder: JSON.stringify(result, null, 2)) read by its
// lines: each event's text goes to JSON.parse, about four times faster than a JSON tokenizer written
// in JavaScript (run-result-stream.ts), which reads every other layout. In that layout a JSON string
// never holds a newline, so each line starts at a place the indentation tells: in run.events, an
// event opens and closes on lines of 6 spaces and `{`, `}` or `},`, its insides are indented more,
// and the array closes on a line of 4 spaces and `]`. So an event ends at the first newline followed
// by 6 spaces and `}` after its start: found in one search, not line by line (an event is about ten
// lines), and JSON.parse checks the text between. (Reading the events a chunk holds with one
// JSON.parse, as an array's elements, took as long and left more for the garbage collector.)
import { closeSync, openSync, readSync } from "node:fs";
import { cutOff, fileChunks, ProblemAt, type RunResultPieces, valueTooLong } from "./run-result-pieces.js";
import { ResultTokens } from "./run-result-tokens.js";

const NEWLINE = 0x0a;
const COMMA = 0x2c;
/** Where an event's closing line starts: a newline, then 6 spaces and `}` (its insides are indented by 8). */
const EVENT_CLOSE = Buffer.from("\n      }");
/** The line that opens an event, its newline included. */
const EVENT_OPEN = Buffer.from("      {\n");
/** What the line that closes run.events starts with: 4 spaces and `]`. */
const ARRAY_CLOSE = Buffer.from("    ]");
/** The line that opens run.events, and what the lines before it close with to be a JSON value. */
const EVENTS_OPEN = '    "events": [';
const HEAD_CLOSE = "]}}";
/** What the text after the events' `]` was cut from: the tokenizer reads the tail as its rest. */
const TAIL_OPEN = Buffer.from('{"run":{"events":[]');

/**
 * Reads `file` into `pieces` when it is laid out as writeRunFolder writes a result; undefined, with
 * nothing handed on, when it is not (then read it with the JSON tokenizer). Once its events have
 * begun, what breaks the layout or is no JSON is a ProblemAt at that event.
 */
export function readLaidOutResult(file: string, pieces: RunResultPieces, maxValueBytes: number): boolean {
  const fd = openSync(file, "r");
  try {
    return new LaidOutReader(pieces, maxValueBytes, fd).read();
  } finally {
    closeSync(fd);
  }
}

class LaidOutReader {
  private state: "head" | "events" | "tail" = "head";
  /** The lines so far of what is read now (the head, the event), from the file's byte `heldAt`. */
  private held: Buffer = Buffer.alloc(0);
  private heldAt = 0;
  /**
   * The buffer `held` lies in, from `heldOffset`: reused for every chunk (a new buffer a chunk was
   * 300 MB of garbage outside the heap for a 300 MB file, freed only when the GC came round).
   */
  private store: Buffer = Buffer.alloc(0);
  private heldOffset = 0;
  /** Where in `held` the next line starts. */
  private lineAt = 0;
  /** Where in `held` the event being read starts (-1: between events). */
  private eventAt = -1;
  /** Where in `held` to look on for the event's end (what is before it holds none). */
  private searchAt = 0;
  /** The run's fields after its events and the result's after the run, read by the tokenizer. */
  private tail: ResultTokens | undefined;

  constructor(
    private readonly pieces: RunResultPieces,
    private readonly maxValueBytes: number,
    private readonly fd: number,
  ) {}

  read(): boolean {
    let first = true;
    for (const { chunk, at } of fileChunks(this.fd)) {
      if (this.tail) {
        this.tail.write(chunk, at);
        continue;
      }
      if (first) {
        // The layout's first line is the result's `{` alone, then a field of the result indented
        // by 2: not another indentation read line by line.
        if (chunk.toString("latin1", 0, 5) !== '{\n  "') return false;
        this.heldAt = at;
        first = false;
      }
      this.hold(chunk);
      if (!this.lines()) return false;
      if (this.state === "tail") this.startTail();
      else this.drop();
    }
    if (first || this.state === "head") return false;
    const end = this.heldAt + this.held.length;
    if (this.state === "events") throw cutOff(this.pieces.where(`byte ${end}`), end);
    this.tail?.end();
    return true;
  }

  /** Reads the whole lines held; false when the head shows the file is not in the layout. */
  private lines(): boolean {
    const held = this.held;
    // The tail goes to the tokenizer (startTail()).
    while (this.state !== "tail") {
      if (this.eventAt >= 0) {
        if (!this.eventEnd()) break;
        continue;
      }
      if (this.state === "events" && startsWith(held, this.lineAt, EVENT_OPEN)) {
        // The line that opens the next event, checked here without looking for its end.
        this.eventAt = this.lineAt;
        this.searchAt = this.lineAt;
        this.lineAt += EVENT_OPEN.length;
        continue;
      }
      const end = held.indexOf(NEWLINE, this.lineAt);
      if (end < 0) break;
      const at = this.lineAt;
      this.lineAt = end + 1;
      if (this.state === "head") {
        if (end - at === EVENTS_OPEN.length && held.toString("latin1", at, end) === EVENTS_OPEN) {
          if (!this.head(held.toString("utf8", 0, end))) return false;
        }
      } else {
        this.betweenEvents(at, end);
      }
    }
    if (this.state === "tail") return true;
    const open = this.state === "head" ? 0 : this.eventAt >= 0 ? this.eventAt : this.lineAt;
    if (held.length - open > this.maxValueBytes) {
      // The head, one event or one line is more than a value may be.
      if (this.state === "head") return false;
      throw valueTooLong(
        this.pieces.where(`byte ${this.heldAt + open}`),
        this.maxValueBytes,
        this.heldAt + open,
      );
    }
    return true;
  }

  /** The result up to run.events: the run's facts, handed on before its first event. */
  private head(text: string): boolean {
    let value: unknown;
    try {
      value = JSON.parse(text + HEAD_CLOSE);
    } catch {
      return false;
    }
    const result = value as Record<string, unknown>;
    const run = result?.run as Record<string, unknown> | undefined;
    // The events line must be the run's last field so far, and the run the result's.
    if (!run || typeof run !== "object" || Array.isArray(run)) return false;
    if (Object.keys(result).at(-1) !== "run" || Object.keys(run).at(-1) !== "events") return false;
    for (const [key, field] of Object.entries(run)) if (key !== "events") this.pieces.runField(key, field);
    for (const [key, field] of Object.entries(result)) if (key !== "run") this.pieces.resultField(key, field);
    this.state = "events";
    return true;
  }

  /**
   * A line of run.events between two events that does not open one (lines() opens them): the array
   * closes on it (`    ]` or `    ],`), or it breaks the layout.
   */
  private betweenEvents(at: number, end: number): void {
    const held = this.held;
    const length = end - at;
    const arrayCloses =
      startsWith(held, at, ARRAY_CLOSE) && (length === 5 || (length === 6 && held[at + 5] === COMMA));
    if (arrayCloses) {
      this.state = "tail";
      // The tail starts after the `]`: its comma, if any, then the run's later fields.
      this.lineAt = at + 5;
      return;
    }
    throw this.layoutBroken(at);
  }

  /**
   * The end of the event being read, when what is held has it: the event goes to JSON.parse and on
   * to the pieces. False when it ends further on.
   */
  private eventEnd(): boolean {
    const held = this.held;
    const close = held.indexOf(EVENT_CLOSE, this.searchAt);
    if (close < 0) {
      // The next chunk may end what the last bytes begin.
      this.searchAt = Math.max(this.eventAt, held.length - EVENT_CLOSE.length + 1);
      return false;
    }
    // The line is `}` or `},` after the 6 spaces: what is after the `}` tells which (or waits for
    // the next chunk).
    const at = close + 1;
    const comma = held[close + EVENT_CLOSE.length] === COMMA ? 1 : 0;
    const end = close + EVENT_CLOSE.length + comma;
    if (end >= held.length) {
      this.searchAt = close;
      return false;
    }
    if (held[end] !== NEWLINE) throw this.layoutBroken(at);
    const text = held.toString("utf8", this.eventAt, at + 7);
    const eventAt = this.eventAt;
    this.eventAt = -1;
    this.lineAt = end + 1;
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch (error) {
      // The file is read again up to the event for its first line; the event's own are held.
      const first = this.lineOf(eventAt);
      const last = first + newlinesIn(held, eventAt, at);
      throw new ProblemAt(
        this.pieces.where(`line ${last}`),
        `not valid JSON: ${(error as Error).message} (in the event on lines ${first}-${last})`,
      );
    }
    this.pieces.event(event);
    return true;
  }

  /** The line at `at` in `held` is not where the layout has it. */
  private layoutBroken(at: number): ProblemAt {
    const line = this.lineOf(at);
    return new ProblemAt(
      this.pieces.where(`line ${line}`),
      `not valid JSON as a run folder's result.json is written (2-space indentation): line ${line} breaks its layout`,
    );
  }

  /**
   * The line of the file (from 1) that `at` in `held` is on: the newlines before it counted from the
   * file's start, only when a problem is named (counting them as the file is read cost every event).
   */
  private lineOf(at: number): number {
    const byte = this.heldAt + at;
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    let newlines = 0;
    for (let position = 0; position < byte; ) {
      const read = readSync(this.fd, buffer, 0, Math.min(buffer.length, byte - position), position);
      if (read === 0) break;
      newlines += newlinesIn(buffer, 0, read);
      position += read;
    }
    return newlines + 1;
  }

  /** Appends `chunk` (a buffer the caller reuses) to what is held. */
  private hold(chunk: Buffer): void {
    const length = this.held.length;
    const needed = length + chunk.length;
    if (this.heldOffset + needed > this.store.length) {
      // No room after what is held: move it to the start, into a bigger buffer when it must grow.
      if (needed > this.store.length) {
        const bigger = Buffer.allocUnsafe(Math.max(needed, 2 * this.store.length, 2 * chunk.length));
        this.held.copy(bigger, 0);
        this.store = bigger;
      } else {
        this.store.copyWithin(0, this.heldOffset, this.heldOffset + length);
      }
      this.heldOffset = 0;
    }
    chunk.copy(this.store, this.heldOffset + length);
    this.held = this.store.subarray(this.heldOffset, this.heldOffset + needed);
  }

  /** Lets go of what has been read, keeping the event or line not yet whole. */
  private drop(): void {
    if (this.state === "head") return;
    const keep = this.eventAt >= 0 ? this.eventAt : this.lineAt;
    if (keep === 0) return;
    this.held = this.held.subarray(keep);
    this.heldOffset += keep;
    this.heldAt += keep;
    this.lineAt -= keep;
    if (this.eventAt >= 0) {
      this.eventAt -= keep;
      this.searchAt -= keep;
    }
  }

  /**
   * From the events' `]` on, the file goes to the tokenizer, which caps each value as it does in
   * any layout (the run's notes, the result's stderr, ...), holding no more than one of them; it
   * reads the text as the rest of the `{"run":{"events":[]` it was cut from (so hands on the events'
   * end, `events: []`, as it does in a whole file).
   */
  private startTail(): void {
    const at = this.heldAt + this.lineAt;
    this.tail = new ResultTokens(this.pieces, this.maxValueBytes, at);
    this.tail.open(TAIL_OPEN);
    this.tail.write(this.held.subarray(this.lineAt), at);
    this.held = Buffer.alloc(0);
    this.store = this.held;
  }
}

/** How many newlines `buffer` holds from `from` up to (not including) `to`. */
function newlinesIn(buffer: Buffer, from: number, to: number): number {
  let count = 0;
  for (let i = buffer.indexOf(NEWLINE, from); i >= 0 && i < to; i = buffer.indexOf(NEWLINE, i + 1)) count++;
  return count;
}

/** Whether `held` has the bytes of `prefix` from `at`. */
function startsWith(held: Buffer, at: number, prefix: Buffer): boolean {
  if (at + prefix.length > held.length) return false;
  for (let i = 0; i < prefix.length; i++) if (held[at + i] !== prefix[i]) return false;
  return true;
}
