/**
 * OpenCode's tool ids and the canonical (Claude Code) tool each one is: a Run, a case and a rule speak
 * the canonical names, so the same case judges a Claude Code run and an OpenCode run (observed with
 * opencode 1.18.33; see shared/reference/opencode-cli.md). `list` is a directory listing (LS), `task`
 * starts a subagent (Agent), `question` asks the user (AskUserQuestion). OpenCode's `patch`,
 * `todoread` and `invalid` have no Claude Code counterpart and are not here.
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

/** The canonical name of an OpenCode tool id (`bash` -> `Bash`), or undefined when it has none. */
export function toolNameFromOpenCode(name: string): string | undefined {
  return Object.hasOwn(OPENCODE_TOOL_NAMES, name) ? OPENCODE_TOOL_NAMES[name] : undefined;
}
