import { CAPTURED_EVENT_VERSION, OPENCODE_INPUT_KEYS, OPENCODE_TOOL_NAMES } from "@evals/core";

/** The environment variables the capture plugin reads. */
export const CAPTURE_ENV = {
  /** The events.jsonl to append @evals/hooks captured events to. */
  events: "EVALS_OPENCODE_EVENTS",
  /** A JSONL file for session.status changes (the runner watches it for API retries). */
  status: "EVALS_OPENCODE_STATUS",
} as const;

/** The plugin's file name in a config dir's `plugin/` folder. */
export const CAPTURE_PLUGIN_FILE = "evals-capture.js";

/**
 * The source of an OpenCode plugin (plain JS, no imports beyond node:fs) that writes the same
 * captured-event JSONL as @evals/hooks: `tool.execute.before` -> PreToolUse, `tool.execute.after`
 * -> PostToolUse, with the shared tool names and input shapes (`opencode_tool` keeps OpenCode's
 * name) and `agent_id` set inside subagent sessions. It also appends `session.status` events
 * (busy, idle, retry) to a second file. Every hook swallows its own errors: capture never gets in
 * the agent's way. Without EVALS_OPENCODE_EVENTS it does nothing.
 */
export function capturePluginSource(): string {
  return `// Written by @evals/opencode: captures tool calls as @evals/hooks events. Never throws.
import { appendFileSync } from "node:fs";

const EVENTS = process.env.${CAPTURE_ENV.events};
const STATUS = process.env.${CAPTURE_ENV.status};
const RUN_ID = process.env.TEST_RUN_ID || "";
const NAMES = ${JSON.stringify(OPENCODE_TOOL_NAMES)};
const KEYS = ${JSON.stringify(OPENCODE_INPUT_KEYS)};
const children = new Map();
const started = new Map();
let seq = 0;

const mapInput = (tool, input) => {
  const keys = KEYS[tool];
  if (!keys || !input || typeof input !== "object") return input || {};
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [keys[key] || key, value]));
};
const append = (file, value) => {
  if (!file) return;
  try {
    appendFileSync(file, JSON.stringify(value) + "\\n");
  } catch {}
};
const capture = (event) =>
  append(EVENTS, { version: ${CAPTURED_EVENT_VERSION}, captured_at: new Date().toISOString(), run_id: RUN_ID, seq: seq++, pid: process.pid, event });
const toolEvent = (name, input, directory, args) => {
  const child = children.get(input.sessionID);
  return {
    hook_event_name: name,
    session_id: input.sessionID,
    cwd: directory,
    tool_name: NAMES[input.tool] || input.tool,
    tool_input: mapInput(input.tool, args),
    tool_use_id: input.callID,
    opencode_tool: input.tool,
    ...(child ? { agent_id: input.sessionID, agent_type: child } : {}),
  };
};

export const EvalsCapture = async ({ directory }) => ({
  event: async ({ event }) => {
    try {
      if (event.type === "session.created" && event.properties?.info?.parentID) {
        children.set(event.properties.info.id, event.properties.info.agent || "subagent");
      }
      if (event.type === "session.status") append(STATUS, { t: Date.now(), ...event.properties });
    } catch {}
  },
  "tool.execute.before": async (input, output) => {
    try {
      started.set(input.callID, Date.now());
      capture(toolEvent("PreToolUse", input, directory, output && output.args));
    } catch {}
  },
  "tool.execute.after": async (input, output) => {
    try {
      const start = started.get(input.callID);
      capture({
        ...toolEvent("PostToolUse", input, directory, input.args),
        tool_response: output && output.output,
        ...(start ? { duration_ms: Date.now() - start } : {}),
      });
    } catch {}
  },
});
`;
}
