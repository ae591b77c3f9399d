// Any layout of result.json read with a JSON tokenizer written in JavaScript (@streamparser/json),
// piece by piece: each event of run.events, each field of the run, each field of the result, so no
// more than one value's text is held. run-result-layout.ts reads writeRunFolder's own layout faster
// and hands this the run's and the result's fields after the events.
import { JSONParser } from "@streamparser/json";
import { cutOff, ProblemAt, type RunResultPieces, valueTooLong } from "./run-result-pieces.js";

/**
 * A result.json's text, fed in chunks, its values handed to `pieces` as they end. `startAt` is the
 * file's byte the first chunk starts at (where the first value's text begins).
 */
export class ResultTokens {
  private readonly parser: JSONParser;
  /** The file's byte after the last chunk fed, and where the last value handed on ended. */
  private fed: number;
  private lastValueAt: number;

  constructor(
    private readonly pieces: RunResultPieces,
    private readonly maxValueBytes: number,
    startAt = 0,
  ) {
    this.fed = startAt;
    this.lastValueAt = startAt;
    this.parser = new JSONParser({
      // Each element of run.events; each field of the run (meta, agents, notes) as it ends, before
      // its events; each field of the result. Events are dropped from their array as they come (the
      // parser keeps an emitted value's parent whole while an ancestor is still to be emitted).
      paths: ["$.run.events.*", "$.run.*", "$.*"],
      keepStack: false,
    });
    this.parser.onValue = ({ value, key, parent, stack }) => {
      this.lastValueAt = this.fed;
      if (stack.length === 3) {
        // An element of run.events (the only path three deep).
        if (Array.isArray(parent)) parent.length = 0;
        pieces.event(value);
      } else if (stack.length === 2) {
        if (stack[1]?.key === "run") pieces.runField(String(key), value);
      } else if (stack.length === 1) {
        pieces.resultField(String(key), value);
      }
    };
  }

  /**
   * Feeds `text` the file's bytes are the rest of (writeRunFolder's layout reads its tail so): none
   * of the file's, its values end at the first chunk's byte.
   */
  open(text: Uint8Array): void {
    this.parser.write(text);
  }

  /**
   * Feeds `chunk`, the file's bytes from `at` on. What is no JSON is a ProblemAt at the event being
   * read (else the byte); so is a value whose text has grown longer than maxValueBytes.
   */
  write(chunk: Uint8Array, at: number): void {
    this.fed = at;
    try {
      this.parser.write(chunk);
    } catch (error) {
      if (error instanceof ProblemAt) throw error;
      // The tokenizer counts from the first text it was fed (not the file's byte in
      // writeRunFolder's layout, whose tail it reads, nor after a byte order mark): say the file's.
      const { message } = error as Error;
      const position = /at chunk position "(\d+)" \(absolute position "\d+"\)/.exec(message);
      const byte = position ? at + Number(position[1]) : this.fed;
      throw new ProblemAt(
        this.here(byte),
        `not valid JSON: ${position ? message.replace(position[0], `at byte ${byte}`) : message}`,
      );
    }
    this.fed += chunk.length;
    if (this.fed - this.lastValueAt > this.maxValueBytes)
      throw valueTooLong(this.here(this.lastValueAt), this.maxValueBytes, this.lastValueAt);
  }

  /** After the last chunk: a file that ended before its result did is a ProblemAt. */
  end(): void {
    if (!this.parser.isEnded) throw cutOff(this.here(this.fed), this.fed);
  }

  private here(byte: number): string {
    return this.pieces.where(`byte ${byte}`);
  }
}
