import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { captureHookInput } from "./capture.js";
import { type HookLimits, hookLimitsFromEnv } from "./config.js";
import { hookSeq } from "./seq.js";
import { readStdin } from "./stdin.js";

/**
 * The HTTP collector: Claude Code's HTTP hooks (`{"type":"http","url":...}`) POST each event's
 * JSON, byte for byte what a command hook reads on stdin, to it. It runs inside the calling process
 * (no process per event), listens on 127.0.0.1 only, and writes each event with the command hook's
 * own writer (`captureHookInput`): the same events.jsonl and tool-calls.jsonl lines, appended whole.
 */

/**
 * The status the collector answers a captured event with. Claude Code prints it as the hook's
 * `exit_code` in the stream's `hook_response` lines (no command hook exits with it), which tells the
 * collector's answers from other hooks' when counting what fired (see lostHookEvents).
 */
export const COLLECTOR_STATUS = 204;

export interface HookCollectorOptions {
  /** The run whose events this collector writes: `<outputRoot>/test-output/<runId>/events.jsonl`. */
  runId: string;
  outputRoot: string;
  /** Field, line and input limits (default: from EVALS_HOOK_* in process.env, as the command hook). */
  limits?: HookLimits;
  /**
   * Fault injection for tests: fail the first event of this name, answering HTTP 500
   * (`"PostToolUse"`) or closing the connection (`"PostToolUse:close"`), without writing it.
   * Default: EVALS_HOOK_COLLECTOR_DROP from process.env.
   */
  drop?: string;
}

export interface HookCollector {
  /** The url to register as every event's HTTP hook. */
  readonly url: string;
  /** Events written so far. */
  readonly captured: number;
  /**
   * Events that reached the collector but were not written (a failed write, an injected drop), by
   * hook event name. The stream tells most lost events (lostHookEvents), but not all: Claude Code
   * prints no hook lines for InstructionsLoaded, so only this count tells one was lost.
   */
  readonly failed: Readonly<Record<string, number>>;
  /** Stops listening (connections in flight are ended). */
  close(): Promise<void>;
}

/** Starts a collector for one run, listening on a free port of 127.0.0.1. */
export async function startHookCollector(options: HookCollectorOptions): Promise<HookCollector> {
  const limits = options.limits ?? hookLimitsFromEnv(process.env);
  const env = { TEST_RUN_ID: options.runId, EVALS_OUTPUT_DIR: options.outputRoot };
  const drop = parseDrop(options.drop ?? process.env.EVALS_HOOK_COLLECTOR_DROP);
  let captured = 0;
  const failed: Record<string, number> = {};
  const fail = (body: string) => {
    const name = eventNameOf(body);
    failed[name] = (failed[name] ?? 0) + 1;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    // Taken when the event arrives, as the command hook takes it when it starts.
    const seq = hookSeq();
    // The command hook's bounds on its stdin (size, time) apply to the body.
    const { text: body, problems } = await readStdin(request, limits);
    if (drop && !drop.done && body.includes(`"hook_event_name":"${drop.event}"`)) {
      drop.done = true;
      fail(body);
      if (drop.close) request.socket.destroy();
      else response.writeHead(500).end();
      return;
    }
    const outcome = captureHookInput(body, {
      env,
      cwd: options.outputRoot,
      pid: process.pid,
      seq,
      limits,
      stdinProblems: problems,
    });
    if (outcome.captured) captured++;
    else fail(body);
    // An empty answer: like a command hook's empty stdout, it decides nothing for the agent. A
    // failed write (logged to hook-errors.log) answers 500, which the stream shows as a failed hook.
    response.writeHead(outcome.captured ? COLLECTOR_STATUS : 500).end();
  };

  const server = createServer((request, response) => {
    if (request.method !== "POST") {
      response.writeHead(405).end();
      return;
    }
    void handle(request, response);
  });
  // Claude Code waits for each answer: no delay from Nagle's algorithm on the small replies.
  server.on("connection", (socket) => socket.setNoDelay(true));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  // A run that is never closed must not keep the process alive.
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/runs/${encodeURIComponent(options.runId)}`,
    get captured() {
      return captured;
    },
    get failed() {
      return { ...failed };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The hook_event_name of a body, read without parsing it all; "(unknown)" when it has none. */
function eventNameOf(body: string): string {
  return /"hook_event_name"\s*:\s*"([^"\\]{1,100})"/.exec(body)?.[1] ?? "(unknown)";
}

function parseDrop(spec: string | undefined): { event: string; close: boolean; done: boolean } | undefined {
  if (!spec) return undefined;
  const [event = "", how] = spec.split(":");
  return { event, close: how === "close", done: false };
}
