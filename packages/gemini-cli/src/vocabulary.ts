/**
 * Gemini CLI's vocabulary mapped onto the shared one (Claude Code's tool names and input keys), so
 * the same cases and rules judge a Gemini run. Observed with @google/gemini-cli 0.61.0
 * (shared/reference/gemini-cli.md): hook `tool_name`s are these same Gemini names.
 */

/** Gemini tool name -> the shared tool name. `update_topic` has no counterpart and is kept. */
export const GEMINI_TOOL_NAMES: Readonly<Record<string, string>> = Object.freeze({
  run_shell_command: "Bash",
  read_file: "Read",
  write_file: "Write",
  replace: "Edit",
  glob: "Glob",
  grep_search: "Grep",
  list_directory: "LS",
  google_web_search: "WebSearch",
  web_fetch: "WebFetch",
  invoke_agent: "Agent",
  enter_plan_mode: "EnterPlanMode",
  activate_skill: "Skill",
  write_todos: "TodoWrite",
  list_background_processes: "BashOutput",
  read_background_output: "BashOutput",
});

/** The shared name of a Gemini tool (`run_shell_command` -> `Bash`); unknown names (MCP, custom) are kept. */
export function geminiToolName(name: string): string {
  return Object.hasOwn(GEMINI_TOOL_NAMES, name) ? (GEMINI_TOOL_NAMES[name] as string) : name;
}

/**
 * The Gemini tools a shared name stands for (`Bash` -> `run_shell_command`; `BashOutput` -> both
 * background tools), or the name itself when it has no Gemini counterpart (an MCP tool, a Gemini name).
 */
export function geminiToolsFor(shared: string): string[] {
  const names = Object.entries(GEMINI_TOOL_NAMES)
    .filter(([, name]) => name === shared)
    .map(([gemini]) => gemini);
  return names.length > 0 ? names : [shared];
}

/** Input keys renamed to the shared ones; keys not listed keep their name, values are never changed. */
const INPUT_KEYS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  replace: { allow_multiple: "replace_all" },
  grep_search: { dir_path: "path", include_pattern: "glob" },
  glob: { dir_path: "path" },
  list_directory: { dir_path: "path" },
  activate_skill: { name: "skill" },
  invoke_agent: { agent_name: "subagent_type" },
};

/**
 * A Gemini tool input in the shared shape: `replace {allow_multiple}` -> `Edit {replace_all}`,
 * `grep_search {dir_path, include_pattern}` -> `Grep {path, glob}`, `glob {dir_path}` -> `Glob {path}`.
 * Bash's `command`, Read's, Write's and Edit's `file_path`, `content`, `old_string`, `new_string`
 * already are the shared keys.
 */
export function geminiToolInput(tool: string, input: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.hasOwn(INPUT_KEYS, tool) ? INPUT_KEYS[tool] : undefined;
  if (!keys) return input;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input))
    out[Object.hasOwn(keys, key) ? (keys[key] as string) : key] = value;
  return out;
}
