/**
 * What differs between two gemini CLI runs of the same scenario (observed with 0.61.0), masked in
 * the normalized form a replay matches on (see normalize.ts): the date and OS line of the
 * `<session_context>`, the working directory (`- **Workspace Directories:**`) and the CLI's home (the
 * "project's temporary directory"), the project's short name under `.gemini/tmp/`, the process
 * group of a shell command, where the CLI is installed, and the time-based ids the CLI gives function calls that came without
 * one (`read_file_1795644645389_0`).
 */

/** A rewrite: the pattern, its replacement, and a text the pattern cannot match without. */
type Rewrite = [pattern: RegExp, replacement: string, needle?: string];

/** The working directory in the CLI's `<session_context>`. */
export const GEMINI_CWD_LINE = /- \*\*Workspace Directories:\*\*\n {2}- (.+)/;
/** The CLI's home (GEMINI_CLI_HOME), from the project's temporary directory `<home>/.gemini/tmp/<project>`. */
export const GEMINI_HOME = /The project's temporary directory is: (.+?)\/\.gemini\/tmp\//;

/** The rewrites of a Gemini request's strings, applied after the path masks. */
export const GEMINI_LINE_RULES: Rewrite[] = [
  [/(Today's date is )[^\n(]+/g, "$1<date> ", "Today's date is "],
  [/(My operating system is: ).*/g, "$1<os>", "My operating system is: "],
  [/(\/\.gemini\/tmp\/)[^/\s"'`]+/g, "$1<project>", "/.gemini/tmp/"],
  // Where the CLI is installed (its built-in skills' SKILL.md locations are in the system prompt).
  [/[^\s<>"'`]*\/@google\/gemini-cli\//g, "<gemini-cli>/", "/@google/gemini-cli/"],
  [/(Process Group PGID: )\d+/g, "$1<pgid>", "Process Group PGID: "],
  [/\b([a-z][a-z0-9_]*)_\d{13}_(\d+)\b/g, "$1_<time>_$2"],
];

/** Whether a request body is a Gemini generateContent request (it has `contents`, not `messages`). */
export function isGeminiBody(body: unknown): body is { contents: unknown[]; systemInstruction?: unknown } {
  return (
    body !== null &&
    typeof body === "object" &&
    Array.isArray((body as { contents?: unknown }).contents) &&
    !("messages" in body)
  );
}
