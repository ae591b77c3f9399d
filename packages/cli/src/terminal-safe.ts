import type { CommandIo } from "./command.js";

/**
 * Control characters a terminal would act on (escape sequences that set the window title or clear
 * the screen, carriage returns, bells, C1 controls), except newlines, tabs and the colour codes
 * (SGR, `ESC [ … m`) evals paints its own tables with.
 */
const CONTROL = /\x1b\[[0-9;]*m|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

const ANY_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/**
 * `text` with every control character a terminal would act on shown as an escape: `\x1b` for one
 * below a space, `\u0085` for DEL and the C1 controls. JSON text (a `--json` report) holds the
 * latter raw inside its strings, where `\x85` is not valid JSON but `\u0085` is the same character;
 * the former JSON.stringify has escaped already.
 */
export function terminalSafe(text: string): string {
  // Most text has no control character at all: one scan of a character class says so (a --json
  // report of a long run is hundreds of megabytes).
  if (!ANY_CONTROL.test(text)) return text;
  return text.replace(CONTROL, (match) => {
    if (match.length > 1) return match;
    const code = match.charCodeAt(0);
    return code < 0x7f ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u00${code.toString(16)}`;
  });
}

/** DEL and the C1 controls: the only characters a terminal acts on that JSON.stringify leaves raw. */
const JSON_CONTROL = /[\x7f-\x9f]/g;

const ANY_JSON_CONTROL = /[\x7f-\x9f]/;

/** The stream under each stream of terminalSafeIo, for JSON text made terminal-safe already. */
const unguarded = new WeakMap<NodeJS.WritableStream, NodeJS.WritableStream>();

/**
 * Writes `json`, text of JSON.stringify, to `stream` terminal-safe (as terminalSafe would make it),
 * checked once and more cheaply than other text (a --json report of a long run is hundreds of
 * megabytes): JSON.stringify escapes every character below a space, so only DEL and the C1
 * controls can be left raw, in strings, where `\u0085` is their own JSON escape.
 */
export function writeJsonText(stream: NodeJS.WritableStream, json: string): boolean {
  return (unguarded.get(stream) ?? stream).write(jsonTerminalSafe(json));
}

function jsonTerminalSafe(json: string): string {
  // ASCII text (as many UTF-8 bytes as characters) can hold only DEL of them: a search for one
  // character, several times faster than a scan for a class of them.
  const ascii = Buffer.byteLength(json) === json.length;
  if (ascii ? !json.includes("\x7f") : !ANY_JSON_CONTROL.test(json)) return json;
  return json.replace(JSON_CONTROL, (match) => `\\u00${match.charCodeAt(0).toString(16)}`);
}

/**
 * The command's streams, every write made terminal-safe: a case name, id, prompt or file name in a
 * case file (user text) never moves the cursor, clears the screen or renames the window.
 */
export function terminalSafeIo(io: CommandIo): CommandIo {
  return { ...io, stdout: safeStream(io.stdout), stderr: safeStream(io.stderr) };
}

function safeStream(stream: NodeJS.WritableStream): NodeJS.WritableStream {
  const safe = new Proxy(stream, {
    get(target, property) {
      if (property === "write") {
        return (chunk: unknown, ...rest: unknown[]) =>
          (target.write as (...args: unknown[]) => boolean)(
            terminalSafe(
              typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"),
            ),
            ...rest,
          );
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  unguarded.set(safe, stream);
  return safe;
}
