import type { HookErrorEntry } from "./hook-errors.js";

export interface StdinRead {
  text: string;
  problems: Pick<HookErrorEntry, "kind" | "message">[];
}

/**
 * Reads all of stdin, bounded in size and time: bytes past `maxBytes` are drained and dropped, and
 * if stdin has not closed after `timeoutMs` what arrived so far is used. Never rejects.
 */
export function readStdin(
  stream: NodeJS.ReadStream,
  limits: { maxInputBytes: number; stdinTimeoutMs: number },
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
      if (seen > kept) {
        problems.push({
          kind: "input_too_large",
          message: `stdin had ${seen} bytes, over EVALS_HOOK_MAX_INPUT_BYTES (${limits.maxInputBytes}); not captured`,
        });
        resolve({ text: "", problems });
        return;
      }
      resolve({ text: Buffer.concat(chunks, kept).toString("utf8"), problems });
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
