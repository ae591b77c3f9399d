import { fstatSync, readSync } from "node:fs";

export interface PipedInput {
  text: string;
  /** True when reading stopped early: the size cap was reached, or the writer went quiet. */
  truncated: boolean;
}

export interface StdinLimits {
  /** How long to wait for the first byte of an open pipe (default 500 ms). */
  firstByteMs: number;
  /** Once data flows, how long a pause ends the input (default 2 s). */
  idleMs: number;
  maxBytes: number;
}

export function stdinLimits(env: NodeJS.ProcessEnv): StdinLimits {
  const wait = Number(env.GEMINI_OFFLOADER_STDIN_WAIT_MS);
  return {
    firstByteMs: Number.isFinite(wait) && wait >= 0 ? wait : 500,
    idleMs: 2_000,
    maxBytes: 16 * 1024 * 1024,
  };
}

/**
 * Reads what is piped or redirected to stdin, never waiting on a terminal or on a pipe that stays
 * open and silent: a terminal is not read at all, a file is read whole (up to the cap), a pipe is
 * read until it closes, until nothing came for `firstByteMs` at the start, or until it pauses for
 * `idleMs`. Null when there is no input.
 */
export async function readPipedStdin(limits: StdinLimits): Promise<PipedInput | null> {
  if (process.stdin.isTTY) return null;
  let kind: "file" | "stream" | "none" = "none";
  try {
    const stats = fstatSync(0);
    kind = stats.isFile() ? "file" : stats.isFIFO() || stats.isSocket() ? "stream" : "none";
  } catch {
    return null;
  }
  if (kind === "none") return null;
  const input = kind === "file" ? readFileInput(limits.maxBytes) : await readStreamInput(limits);
  return input && input.text.length > 0 ? input : null;
}

function readFileInput(maxBytes: number): PipedInput {
  const buffer = Buffer.alloc(Math.min(maxBytes + 1, 1024 * 1024));
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const read = readSync(0, buffer, 0, buffer.length, null);
    if (read === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, read)));
    total += read;
    if (total > maxBytes) break;
  }
  const all = Buffer.concat(chunks);
  return { text: all.subarray(0, maxBytes).toString("utf8"), truncated: total > maxBytes };
}

function readStreamInput(limits: StdinLimits): Promise<PipedInput | null> {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    const chunks: Buffer[] = [];
    let total = 0;
    let ended = false;
    let truncated = false;
    const finish = () => {
      clearTimeout(timer);
      stdin.removeAllListeners("data");
      stdin.removeAllListeners("end");
      stdin.removeAllListeners("error");
      stdin.pause();
      stdin.destroy();
      const all = Buffer.concat(chunks);
      if (!ended && total > 0) truncated = true;
      resolve(total === 0 ? null : { text: all.subarray(0, limits.maxBytes).toString("utf8"), truncated });
    };
    let timer = setTimeout(finish, limits.firstByteMs);
    stdin.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
      clearTimeout(timer);
      if (total > limits.maxBytes) {
        finish();
        return;
      }
      timer = setTimeout(finish, limits.idleMs);
    });
    stdin.on("end", () => {
      ended = true;
      finish();
    });
    stdin.on("error", () => {
      ended = true;
      finish();
    });
  });
}
