/**
 * What differs between two gemini CLI runs of the same scenario (observed with 0.61.0), masked in
 * the normalized form a replay matches on (see normalize.ts): the date and OS line of the
 * `<session_context>`, the working directory (`- **Workspace Directories:**`) and the CLI's home (the
 * "project's temporary directory"), the project's short name under `.gemini/tmp/`, the process
 * group of a shell command, where the CLI is installed, the time-based ids the CLI gives function
 * calls that came without one (`read_file_1795644645389_0`), and the order it lists its skills in
 * (`withSkillsInNameOrder`).
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

/*
 * The order of the CLI's skills. Gemini CLI 0.61.0 lists the skills it found in the order its
 * file walk (`glob` over `bundle/builtin/` and each skills folder) returned them, and that walk
 * is concurrent: two runs of the same scenario can list `skill-creator` and `antigravity-support`
 * either way round, in the system prompt's `<available_skills>` and in the `activate_skill` tool's
 * description and name enum. The match sorts them by name; the set of skills still counts.
 */

const AVAILABLE_SKILLS = /(<available_skills>\n)([\s\S]*?)(\n<\/available_skills>)/g;
const SKILL_ENTRY = / {2}<skill>\n {4}<name>([^<\n]*)<\/name>\n[\s\S]*?\n {2}<\/skill>/g;
const AVAILABLE_HINT = /( \(Available: )('[^'\n]*'(?:, '[^'\n]*')*)(\))/g;
const ACTIVATE_SKILL_TOOL = "activate_skill";

/** The `<skill>` entries of one `<available_skills>` listing sorted by name, when the listing is only entries. */
function sortedSkillListing(listing: string): string {
  const entries = [...listing.matchAll(SKILL_ENTRY)].map((match) => ({ name: match[1]!, text: match[0] }));
  if (entries.map((entry) => entry.text).join("\n") !== listing) return listing;
  return entries
    .sort((a, b) => compareNames(a.name, b.name))
    .map((entry) => entry.text)
    .join("\n");
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function skillsInNameOrder(text: string): string {
  let out = text;
  if (out.includes("<available_skills>\n"))
    out = out.replace(AVAILABLE_SKILLS, (_all, open: string, listing: string, close: string) => {
      return `${open}${sortedSkillListing(listing)}${close}`;
    });
  if (out.includes(" (Available: '"))
    out = out.replace(AVAILABLE_HINT, (_all, open: string, names: string, close: string) => {
      const quoted = names.match(/'[^'\n]*'/g) ?? [];
      return `${open}${quoted.sort(compareNames).join(", ")}${close}`;
    });
  return out;
}

/** The `activate_skill` declaration's skill-name enum, sorted in place. */
function sortActivateSkillEnum(declaration: Record<string, unknown>): void {
  for (const key of ["parametersJsonSchema", "parameters"]) {
    const schema = declaration[key] as { properties?: { name?: { enum?: unknown } } } | undefined;
    const names = schema?.properties?.name?.enum;
    if (Array.isArray(names) && names.every((name) => typeof name === "string")) {
      schema!.properties!.name!.enum = [...names].sort(compareNames);
    }
  }
}

/** The parts of a Gemini request the CLI lists its skills in: the system prompt and the tools. */
const SKILL_LISTING_FIELDS = ["systemInstruction", "tools"] as const;

/**
 * A normalized Gemini request with its skills in name order: the `<available_skills>` entries of
 * the system prompt, and the `(Available: …)` hint and the name enum of the `activate_skill`
 * declaration. The conversation (`contents`) is left as it is: a listing there is what the agent
 * read or wrote, so its order is part of the run. `body` is the normalizer's own copy; it is changed
 * in place and returned.
 */
export function withSkillsInNameOrder(body: Record<string, unknown>): Record<string, unknown> {
  const visit = (value: unknown): unknown => {
    if (typeof value === "string") return skillsInNameOrder(value);
    if (Array.isArray(value)) return value.map(visit);
    if (value !== null && typeof value === "object") {
      const record = value as Record<string, unknown>;
      for (const [key, item] of Object.entries(record)) record[key] = visit(item);
      if (record.name === ACTIVATE_SKILL_TOOL) sortActivateSkillEnum(record);
      return record;
    }
    return value;
  };
  for (const field of SKILL_LISTING_FIELDS) if (field in body) body[field] = visit(body[field]);
  return body;
}
