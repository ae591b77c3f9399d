import { fstatSync, readSync } from "node:fs";
import type { HookErrorEntry } from "./hook-errors.js";

export interface StdinRead {
  text: string;
  problems: Pick<HookErrorEntry, "kind" | "message">[];
}

export interface StdinLimits {
  maxInputBytes: number;
  stdinTimeoutMs: number;
}

/**
 * Reads all of stdin (fd 0), bounded in size and time: bytes past `maxInputBytes` are drained and
 * dropped, and if stdin has not closed after `stdinTimeoutMs` what arrived so far is used. Never
 * rejects.
 *
 * Claude Code hands the hook a socket (a shell pipe gives a FIFO). `process.stdin` would load the
 * `net` module and a stream, which costs more than the rest of the hook together; instead the fd
 * is switched to non-blocking mode and read with `fs.readSync`, polling while it is empty. A plain
 * blocking read cannot be used: it could wait forever, and a read left pending on libuv's thread
 * pool even keeps `process.exit` from returning. Where the fast path is unavailable (a terminal,
 * Windows, a Node without the binding) `process.stdin` is used.
 */
export function readHookStdin(limits: StdinLimits): Promise<StdinRead> {
  const fast = prepareFastRead(0);
  if (fast === "unavailable") return readStdin(process.stdin, limits);
  if (typeof fast === "object") return Promise.resolve({ text: "", problems: [fast] });
  return pollFd(0, limits);
}

/**
 * Holds the handle that made fd 0 non-blocking until the process exits: closing it (as garbage
 * collection of a handle might) would close fd 0.
 */
const openedHandles: unknown[] = [];

function prepareFastRead(fd: number): "ready" | "unavailable" | StdinRead["problems"][number] {
  if (process.platform === "win32") return "unavailable";
  let stats: ReturnType<typeof fstatSync>;
  try {
    stats = fstatSync(fd);
  } catch (error) {
    return { kind: "bad_input", message: `stdin unavailable: ${(error as Error).message}` };
  }
  if (stats.isFile()) return "ready";
  if (!stats.isFIFO() && !stats.isSocket()) return "unavailable";
  try {
    // uv_pipe_open sets O_NONBLOCK on the file description; reads then fail with EAGAIN when empty.
    const binding = (process as unknown as { binding(name: string): unknown }).binding("pipe_wrap") as {
      Pipe: new (type: number) => { open(fd: number): number };
      constants: { SOCKET: number };
    };
    const handle = new binding.Pipe(binding.constants.SOCKET);
    if (handle.open(fd) !== 0) return "unavailable";
    openedHandles.push(handle);
    return "ready";
  } catch {
    return "unavailable";
  }
}

function pollFd(fd: number, limits: StdinLimits): Promise<StdinRead> {
  const deadline = Date.now() + limits.stdinTimeoutMs;
  const chunks: Buffer[] = [];
  const buffer = Buffer.allocUnsafe(64 * 1024);
  let kept = 0;
  let seen = 0;
  let wait = 1;
  return new Promise((resolve) => {
    const finish = (problems: StdinRead["problems"]) =>
      resolve(whatWasRead(chunks, kept, seen, limits, problems));
    const poll = () => {
      for (;;) {
        let count: number;
        try {
          count = readSync(fd, buffer, 0, buffer.length, null);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "EAGAIN" || code === "EWOULDBLOCK") break;
          if (code === "EINTR") continue;
          finish([{ kind: "bad_input", message: `reading stdin failed: ${(error as Error).message}` }]);
          return;
        }
        if (count === 0) {
          finish([]);
          return;
        }
        seen += count;
        if (kept + count <= limits.maxInputBytes) {
          chunks.push(Buffer.from(buffer.subarray(0, count)));
          kept += count;
        }
      }
      if (Date.now() >= deadline) {
        finish([
          {
            kind: "stdin_timeout",
            message: `stdin did not close within ${limits.stdinTimeoutMs} ms; used the ${kept} bytes that arrived`,
          },
        ]);
        return;
      }
      setTimeout(poll, wait);
      wait = Math.min(wait * 2, 16);
    };
    poll();
  });
}

/**
 * Reads a stream to its end, with the same bounds as readHookStdin (the fallback, and what tests
 * use for streams).
 */
export function readStdin(
  stream: NodeJS.ReadableStream & { isTTY?: boolean },
  limits: StdinLimits,
): Promise<StdinRead> {
  return new Promise((resolve) => {
    const problems: StdinRead["problems"] = [];
    if (stream.isTTY) {
      resolve({
        text: "",
        problems: [{ kind: "bad_input", message: "stdin is a terminal, not a hook payload" }],
      });
      return;
    }
    const chunks: Buffer[] = [];
    let kept = 0;
    let seen = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stream.removeAllListeners("data");
      stream.pause();
      resolve(whatWasRead(chunks, kept, seen, limits, problems));
    };
    const timer = setTimeout(() => {
      problems.push({
        kind: "stdin_timeout",
        message: `stdin did not close within ${limits.stdinTimeoutMs} ms; used the ${kept} bytes that arrived`,
      });
      finish();
    }, limits.stdinTimeoutMs);
    stream.on("data", (chunk: Buffer) => {
      seen += chunk.length;
      if (kept + chunk.length <= limits.maxInputBytes) {
        chunks.push(chunk);
        kept += chunk.length;
      }
    });
    stream.once("end", finish);
    stream.once("error", (error) => {
      problems.push({ kind: "bad_input", message: `reading stdin failed: ${error.message}` });
      finish();
    });
  });
}

/** The text of the `kept` bytes read, or none and a problem when `seen` went past the size limit. */
function whatWasRead(
  chunks: Buffer[],
  kept: number,
  seen: number,
  limits: StdinLimits,
  problems: StdinRead["problems"],
): StdinRead {
  if (seen <= kept) return { text: Buffer.concat(chunks, kept).toString("utf8"), problems };
  problems.push({
    kind: "input_too_large",
    message: `stdin had ${seen} bytes, over EVALS_HOOK_MAX_INPUT_BYTES (${limits.maxInputBytes}); not captured`,
  });
  return { text: "", problems };
}
