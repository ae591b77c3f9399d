import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Appends JSON values as lines. Each line goes out in one write(2) on a file opened with O_APPEND,
 * so lines from concurrent processes never interleave or tear.
 */
export function appendJsonlLine(file: string, value: unknown): void {
  const fd = openAppend(file);
  try {
    writeWhole(fd, serializeJsonlLine(value));
  } finally {
    closeSync(fd);
  }
}

/** An appender that keeps its file open for many lines (one write per line, O_APPEND). */
export class JsonlAppender {
  private fd: number | undefined;
  constructor(readonly file: string) {}

  append(value: unknown): void {
    this.fd ??= openAppend(this.file);
    writeWhole(this.fd, serializeJsonlLine(value));
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** One line of JSONL: compact JSON with a trailing newline. Throws on values JSON cannot hold. */
export function serializeJsonlLine(value: unknown): Buffer {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError("value cannot be written as JSON");
  return Buffer.from(`${json}\n`, "utf8");
}

function openAppend(file: string): number {
  mkdirSync(dirname(file), { recursive: true });
  return openSync(file, "a");
}

function writeWhole(fd: number, buffer: Buffer): void {
  // A regular file takes the whole buffer in one write; the loop only guards against short writes.
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
}
