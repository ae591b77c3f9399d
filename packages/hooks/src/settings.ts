import { existsSync, readFileSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
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

/** One HTTP hook in Claude Code's settings: the event's JSON is POSTed to `url` (Claude Code 2.1.63+). */
export interface ClaudeHookHttp {
  type: "http";
  url: string;
  /** Seconds before Claude Code gives up on the answer. */
  timeout?: number;
}

/** One matcher group of an event: `matcher` filters tool events by tool name ("*" = all). */
export interface ClaudeHookMatcher {
  matcher?: string;
  hooks: (ClaudeHookCommand | ClaudeHookHttp)[];
}

/** The part of a Claude Code settings file this package writes; other keys pass through. */
export interface ClaudeSettings {
  hooks?: Record<string, ClaudeHookMatcher[]>;
  [key: string]: unknown;
}

export interface HookSettingsOptions {
  /**
   * Events to register. Default: DEFAULT_HOOK_EVENTS, the events the readers use
   * (CAPTURABLE_HOOK_EVENTS adds SessionStart, Notification and SessionEnd).
   */
  events?: readonly string[];
  /**
   * Tool-name matchers of tool events, by event (`{ PreToolUse: "Agent|Task" }`): the hook fires for
   * those tools only. Default "*" (every tool).
   */
  toolMatcher?: Readonly<Record<string, string>>;
  /**
   * The command Claude Code runs. Default: the fast shell entry, `<dash> <hookShellPath()> <node>`,
   * when dash is installed, else the Node entry `<node> <hookBinPath()>` (absolute, quoted).
   */
  command?: string;
  /**
   * Which entry the default command runs: "shell" (bin/evals-hook.sh under dash: a few ms per
   * event), "node" (dist/evals-hook.cjs: one Node start, ~35 ms, per event) or "auto" (default:
   * shell when dash is found).
   */
  entry?: "auto" | "shell" | "node";
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

/** The fast shell entry, inside the package's bin/. */
export const HOOK_SHELL_FILE = "evals-hook.sh";

/**
 * The plugin's hook command: Claude Code sets CLAUDE_PLUGIN_ROOT to the plugin (this package). The
 * shell entry hands over to the Node entry (`node` from PATH) wherever /bin/sh is not dash.
 */
export const PLUGIN_HOOK_COMMAND = `sh "\${CLAUDE_PLUGIN_ROOT}/bin/${HOOK_SHELL_FILE}"`;

/**
 * A Claude Code settings object that runs the capture hook on every event in `events` (tool
 * events with matcher "*"). Throws when the hook executable has not been built.
 */
export function hookSettings(options: HookSettingsOptions = {}): ClaudeSettings {
  const command = options.command ?? defaultCommand(options.node, options.entry);
  const timeout = options.timeoutSeconds ?? DEFAULT_HOOK_TIMEOUT_SECONDS;
  return mergeHooks(
    options.base,
    hookRegistrations({ type: "command", command, timeout }, options.events, options.toolMatcher),
  );
}

/** What httpHookSettings takes: the collector's url, and the events, matchers and base of hookSettings. */
export interface HttpHookSettingsOptions
  extends Pick<HookSettingsOptions, "events" | "toolMatcher" | "base"> {
  /** The collector's url (HookCollector.url). */
  url: string;
  /**
   * Seconds Claude Code waits for each answer. Default 5: the collector answers in milliseconds,
   * and without a timeout a hung collector would hold a PreToolUse for 600 s.
   */
  timeoutSeconds?: number;
}

export const DEFAULT_HTTP_HOOK_TIMEOUT_SECONDS = 5;

/** The first Claude Code version with HTTP hooks (`"type": "http"`). */
export const HTTP_HOOKS_MIN_VERSION = "2.1.63";

/**
 * A Claude Code settings object that POSTs every event in `events` (tool events with matcher "*")
 * to an HTTP collector (startHookCollector), in place of the capture command.
 */
export function httpHookSettings(options: HttpHookSettingsOptions): ClaudeSettings {
  const timeout = options.timeoutSeconds ?? DEFAULT_HTTP_HOOK_TIMEOUT_SECONDS;
  return mergeHooks(
    options.base,
    hookRegistrations({ type: "http", url: options.url, timeout }, options.events, options.toolMatcher),
  );
}

/** Whether a Claude Code version (`2.1.330`, or `claude --version`'s line) has HTTP hooks. */
export function supportsHttpHooks(version: string): boolean {
  const found = /(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!found) return false;
  const have = found.slice(1).map(Number);
  const need = HTTP_HOOKS_MIN_VERSION.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    if (have[i]! !== need[i]!) return have[i]! > need[i]!;
  }
  return true;
}

/** `base` with `ours` appended to each event's groups (its own hooks and keys kept). */
function mergeHooks(base: ClaudeSettings = {}, ours: Record<string, ClaudeHookMatcher[]>): ClaudeSettings {
  const hooks: Record<string, ClaudeHookMatcher[]> = { ...(base.hooks ?? {}) };
  for (const [event, groups] of Object.entries(ours)) hooks[event] = [...(hooks[event] ?? []), ...groups];
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
    hooks: hookRegistrations(
      {
        type: "command",
        command: PLUGIN_HOOK_COMMAND,
        timeout: options.timeoutSeconds ?? DEFAULT_HOOK_TIMEOUT_SECONDS,
      },
      options.events,
    ),
  };
}

/**
 * The absolute path of the built hook executable (`dist/evals-hook.cjs` of this package), found
 * from this module whether it runs from dist/ or src/.
 */
export function hookBinPath(): string {
  const root = packageRoot();
  return root
    ? join(root, "dist", HOOK_BIN_FILE)
    : join(dirname(fileURLToPath(import.meta.url)), HOOK_BIN_FILE);
}

/** The absolute path of the fast shell entry (`bin/evals-hook.sh` of this package). */
export function hookShellPath(): string {
  const root = packageRoot() ?? join(dirname(fileURLToPath(import.meta.url)), "..");
  return join(root, "bin", HOOK_SHELL_FILE);
}

/** The dash executable, when installed (the shell entry needs it for whole-line appends). */
export function findDash(): string | undefined {
  const folders = ["/bin", "/usr/bin", ...(process.env.PATH ?? "").split(delimiter).filter(Boolean)];
  for (const folder of folders) {
    const candidate = join(folder, "dash");
    if (isAbsolute(candidate) && existsSync(candidate)) return candidate;
  }
  return undefined;
}

function packageRoot(): string | undefined {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    if (isThisPackage(join(folder, "package.json"))) return folder;
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  return undefined;
}

function hookRegistrations(
  hook: ClaudeHookCommand | ClaudeHookHttp,
  events: readonly string[] = DEFAULT_HOOK_EVENTS,
  toolMatcher: Readonly<Record<string, string>> = {},
): Record<string, ClaudeHookMatcher[]> {
  const hooks: Record<string, ClaudeHookMatcher[]> = {};
  for (const event of new Set(events)) {
    const group: ClaudeHookMatcher = { hooks: [{ ...hook }] };
    hooks[event] = [isToolHookEvent(event) ? { matcher: toolMatcher[event] ?? "*", ...group } : group];
  }
  return hooks;
}

function defaultCommand(node: string | undefined, entry: HookSettingsOptions["entry"] = "auto"): string {
  const bin = hookBinPath();
  if (!existsSync(bin)) {
    throw new Error(
      `The capture hook has not been built: ${bin} does not exist. Build @evals/hooks (npm run build) or pass { command }.`,
    );
  }
  const nodePath = shellQuote(node ?? nodeExecutable());
  if (entry !== "node") {
    const dash = findDash();
    if (dash) return `${shellQuote(dash)} ${shellQuote(hookShellPath())} ${nodePath}`;
    if (entry === "shell")
      throw new Error("The shell entry of the capture hook needs dash, which was not found.");
  }
  return `${nodePath} ${shellQuote(bin)}`;
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
