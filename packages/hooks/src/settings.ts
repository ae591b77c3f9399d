import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeFileAtomic } from "@evals/core";
import { DEFAULT_HOOK_EVENTS, isToolHookEvent } from "./events.js";

/**
 * Registering the capture hook with Claude Code: a settings file for `claude --settings FILE`
 * (absolute paths), and the hooks.json of the plugin layout (paths under ${CLAUDE_PLUGIN_ROOT}).
 */

/** One hook command in Claude Code's settings. */
export interface ClaudeHookCommand {
  type: "command";
  command: string;
  /** Seconds before Claude Code gives up on the hook. */
  timeout?: number;
}

/** One matcher group of an event: `matcher` filters tool events by tool name ("*" = all). */
export interface ClaudeHookMatcher {
  matcher?: string;
  hooks: ClaudeHookCommand[];
}

/** The part of a Claude Code settings file this package writes; other keys pass through. */
export interface ClaudeSettings {
  hooks?: Record<string, ClaudeHookMatcher[]>;
  [key: string]: unknown;
}

export interface HookSettingsOptions {
  /** Events to register. Default: DEFAULT_HOOK_EVENTS (add "PostToolBatch" to capture batches). */
  events?: readonly string[];
  /** The command Claude Code runs. Default: `<node> <hookBinPath()>`, both absolute and quoted. */
  command?: string;
  /** The Node executable for the default command. Default: the one running this code. */
  node?: string;
  /** Per-hook timeout in seconds written with each command. Default 30. */
  timeoutSeconds?: number;
  /** Settings to merge into: their keys and hooks are kept, ours are appended. */
  base?: ClaudeSettings;
}

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 30;

/** The file name of the hook executable inside the package's dist/. */
export const HOOK_BIN_FILE = "evals-hook.cjs";

/** The plugin's hook command: Claude Code sets CLAUDE_PLUGIN_ROOT to the plugin (this package). */
export const PLUGIN_HOOK_COMMAND = `node "\${CLAUDE_PLUGIN_ROOT}/dist/${HOOK_BIN_FILE}"`;

/**
 * A Claude Code settings object that runs the capture hook on every event in `events` (tool
 * events with matcher "*"). Throws when the hook executable has not been built.
 */
export function hookSettings(options: HookSettingsOptions = {}): ClaudeSettings {
  const command = options.command ?? defaultCommand(options.node);
  const base = options.base ?? {};
  const hooks: Record<string, ClaudeHookMatcher[]> = { ...(base.hooks ?? {}) };
  for (const [event, groups] of Object.entries(
    hookRegistrations(command, options.events, options.timeoutSeconds),
  )) {
    hooks[event] = [...(hooks[event] ?? []), ...groups];
  }
  return { ...base, hooks };
}

/**
 * Writes `hookSettings(options)` to `file` (folders created, written whole through a temporary
 * file and a rename) and returns the file's absolute path, ready for `claude --settings`.
 */
export function writeHookSettings(file: string, options: HookSettingsOptions = {}): string {
  const target = resolve(file);
  const settings = hookSettings(options);
  writeFileAtomic(target, `${JSON.stringify(settings, null, 2)}\n`);
  return target;
}

/** The `hooks/hooks.json` of the plugin layout (the package root is the plugin). */
export function pluginHooksFile(options: Pick<HookSettingsOptions, "events" | "timeoutSeconds"> = {}) {
  return {
    description:
      "@evals/hooks: when TEST_MODE=true, capture every Claude Code event to test-output/<TEST_RUN_ID>/events.jsonl",
    hooks: hookRegistrations(PLUGIN_HOOK_COMMAND, options.events, options.timeoutSeconds),
  };
}

/**
 * The absolute path of the built hook executable (`dist/evals-hook.cjs` of this package), found
 * from this module whether it runs from dist/ or src/.
 */
export function hookBinPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  let folder = here;
  for (let depth = 0; depth < 4; depth++) {
    if (isThisPackage(join(folder, "package.json"))) return join(folder, "dist", HOOK_BIN_FILE);
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  return join(here, HOOK_BIN_FILE);
}

function hookRegistrations(
  command: string,
  events: readonly string[] = DEFAULT_HOOK_EVENTS,
  timeoutSeconds = DEFAULT_HOOK_TIMEOUT_SECONDS,
): Record<string, ClaudeHookMatcher[]> {
  const hooks: Record<string, ClaudeHookMatcher[]> = {};
  for (const event of new Set(events)) {
    const group: ClaudeHookMatcher = { hooks: [{ type: "command", command, timeout: timeoutSeconds }] };
    hooks[event] = [isToolHookEvent(event) ? { matcher: "*", ...group } : group];
  }
  return hooks;
}

function defaultCommand(node: string | undefined): string {
  const bin = hookBinPath();
  if (!existsSync(bin)) {
    throw new Error(
      `The capture hook has not been built: ${bin} does not exist. Build @evals/hooks (npm run build) or pass { command }.`,
    );
  }
  return `${shellQuote(node ?? nodeExecutable())} ${shellQuote(bin)}`;
}

/** The running Node binary, unless this is another runtime (then `node` from PATH). */
function nodeExecutable(): string {
  const versions = process.versions as Record<string, string | undefined>;
  return process.release?.name === "node" && !versions.bun && !versions.deno ? process.execPath : "node";
}

/** Quotes for the POSIX shell Claude Code runs hook commands with. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function isThisPackage(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { name?: unknown }).name === "@evals/hooks";
  } catch {
    return false;
  }
}
