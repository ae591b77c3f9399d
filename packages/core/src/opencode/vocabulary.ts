/**
 * OpenCode's vocabulary mapped onto Claude Code's (see claude/vocabulary.ts): its lower-case tool
 * names and camelCase tool inputs, so the same evaluators judge both agents. Observed with
 * opencode-ai 1.18.33 (shared/reference/opencode-cli.md, tools.json of its fixtures).
 */

/**
 * OpenCode tool name -> the shared (Claude Code) tool name: a Run, a case and a rule speak these, so
 * the same case judges a Claude Code run and an OpenCode run. `list` is a directory listing (LS),
 * `task` starts a subagent (Agent, the canonical name of Task), `question` asks the user. OpenCode's
 * `patch`, `todoread` and `invalid` have no Claude Code counterpart and are not here.
 */
export const OPENCODE_TOOL_NAMES: Readonly<Record<string, string>> = Object.freeze({
  bash: "Bash",
  read: "Read",
  write: "Write",
  edit: "Edit",
  multiedit: "MultiEdit",
  glob: "Glob",
  grep: "Grep",
  list: "LS",
  task: "Agent",
  todowrite: "TodoWrite",
  webfetch: "WebFetch",
  websearch: "WebSearch",
  skill: "Skill",
  question: "AskUserQuestion",
});

/** The shared name of an OpenCode tool (`bash` -> `Bash`); unknown names (MCP, custom) are kept. */
export function openCodeToolName(name: string): string {
  return Object.hasOwn(OPENCODE_TOOL_NAMES, name) ? (OPENCODE_TOOL_NAMES[name] as string) : name;
}

/** The shared name of an OpenCode tool id (`bash` -> `Bash`), or undefined when it has none (for cases). */
export function toolNameFromOpenCode(name: string): string | undefined {
  return Object.hasOwn(OPENCODE_TOOL_NAMES, name) ? OPENCODE_TOOL_NAMES[name] : undefined;
}

/** Whether a name is one of OpenCode's built-in tools (lower case, as OpenCode sends it). */
export function isOpenCodeToolName(name: string): boolean {
  return Object.hasOwn(OPENCODE_TOOL_NAMES, name);
}

/**
 * Input keys whose meaning is the same in both agents, renamed to Claude Code's. Keys not listed
 * keep their name (bash `workdir`, grep `include`, ...); a value is never changed, except where
 * the unit differs (noted below).
 */
export const OPENCODE_INPUT_KEYS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  read: { filePath: "file_path" },
  write: { filePath: "file_path" },
  edit: {
    filePath: "file_path",
    oldString: "old_string",
    newString: "new_string",
    replaceAll: "replace_all",
  },
  multiedit: { filePath: "file_path" },
  list: {},
  grep: { include: "glob" },
  skill: { name: "skill" },
};

/**
 * An OpenCode tool input in the shared shape: `read {filePath}` -> `Read {file_path}`, `edit
 * {oldString, newString, replaceAll}` -> `{old_string, new_string, replace_all}`, `grep {include}` ->
 * `{glob}`, `skill {name}` -> `Skill {skill}`. Keys without a shared meaning are kept as they are. `webfetch.timeout` is in seconds in
 * OpenCode and is left alone (Claude Code's WebFetch has none).
 */
export function openCodeToolInput(tool: string, input: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.hasOwn(OPENCODE_INPUT_KEYS, tool) ? OPENCODE_INPUT_KEYS[tool] : undefined;
  if (!keys) return input;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    out[Object.hasOwn(keys, key) ? (keys[key] as string) : key] = value;
  }
  return out;
}
