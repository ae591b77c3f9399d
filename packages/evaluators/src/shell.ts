import { type ParseEntry, parse as parseWords } from "shell-quote";

/**
 * The shell commands agents run through Bash, read with shell-quote (quotes, escapes, operators,
 * redirections, comments) plus what a one-line parser leaves to its caller: newlines between
 * commands, heredoc bodies, `#` inside a word, `2>` descriptors and `$(...)`. It never runs anything
 * and never throws; unbalanced quotes end at the end of the text. On top sits the project's policy:
 * which program a command runs (through sudo, env, xargs, `bash -c`), what is read-only, what writes
 * a file.
 */

export interface ShellToken {
  type: "word" | "op";
  value: string;
}

export interface Redirect {
  /** The operator as written without its fd: ">", ">>", "<", "<<", "<<<", ">&", "&>". */
  op: string;
  /** The file descriptor before the operator, when one was written (`2>`). */
  fd?: number;
  target: string;
}

/** One simple command: `words[0]` is the program (leading `VAR=value` assignments are in `assignments`). */
export interface SimpleCommand {
  words: string[];
  assignments: string[];
  redirects: Redirect[];
  /** It reads the output of the command before it (`a | b`: true for b). */
  piped: boolean;
  /** It feeds a heredoc (`cat <<EOF`). */
  heredoc: boolean;
}

const REDIRECTS = ["&>>", "&>", "<<<", "<<-", "<<", ">>", ">&", ">|", "<&", "<>", ">", "<"];

/** An unquoted line break, kept as a word of its own so that shell-quote's output shows it. */
const LINE_BREAK = "\uE000";
/** A `#` inside a word: for the shell it starts no comment (shell-quote would start one). */
const HASH = "\uE001";
const HEREDOC = /(?<!<)<<(-?)\s*(['"]?)([A-Za-z0-9_.-]+)\2/g;

/**
 * The text shell-quote reads: backslash-newlines joined, heredoc bodies dropped, line breaks marked
 * (inside quotes the mark comes back as a newline), a `#` inside a word marked as no comment.
 */
function prepare(command: string): string {
  const lines: string[] = [];
  const pending: { delimiter: string; stripTabs: boolean }[] = [];
  for (const line of command.replace(/\\\r?\n/g, "").split(/\r?\n/)) {
    const heredoc = pending[0];
    if (heredoc) {
      if ((heredoc.stripTabs ? line.replace(/^\t+/, "") : line).trim() === heredoc.delimiter) pending.shift();
      continue;
    }
    lines.push(line);
    for (const match of line.matchAll(HEREDOC))
      pending.push({ delimiter: match[3] as string, stripTabs: match[1] === "-" });
  }
  return lines.join(` ${LINE_BREAK} `).replace(/(?<=[^\s;&|()<>])#/g, HASH);
}

function restore(word: string): string {
  return word.replaceAll(` ${LINE_BREAK} `, "\n").replaceAll(LINE_BREAK, "\n").replaceAll(HASH, "#");
}

/** A command line of words only: nothing a shell would quote, expand, redirect or split on. */
const PLAIN_WORDS = /^[ \t]*[\w./:,@%+=-]+(?:[ \t]+[\w./:,@%+=-]+)*[ \t]*$/;

/**
 * The words of a line of plain words (see PLAIN_WORDS), as `command.trim().split(/[ \t]+/)` gives
 * them: split without a regular expression, which cost more than the rest of a plain line's reading.
 */
function plainWords(command: string): string[] {
  const words: string[] = [];
  let start = -1;
  for (let at = 0; at < command.length; at++) {
    if (!isBlank(command.charCodeAt(at))) {
      if (start === -1) start = at;
    } else if (start !== -1) {
      words.push(command.slice(start, at));
      start = -1;
    }
  }
  if (start !== -1) words.push(command.slice(start));
  return words;
}

/** Splits a command line into words and operators, removing quotes. Heredoc bodies are dropped. */
export function tokenizeShell(command: string): ShellToken[] {
  // Most commands are plain words (`npm test -- --grep x`): split them without shell-quote, which
  // costs a long run's grading more than reading it.
  if (PLAIN_WORDS.test(command)) return plainWords(command).map((value) => ({ type: "word", value }));
  const text = prepare(command);
  return tokensOf(
    parseWords(text, (name) => `$${name}`),
    text,
  );
}

function tokensOf(entries: readonly ParseEntry[], text: string): ShellToken[] {
  const tokens: ShellToken[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as ParseEntry;
    if (typeof entry === "string") {
      const next = entries[i + 1];
      if (entry === LINE_BREAK) tokens.push({ type: "op", value: "\n" });
      else if (entry.endsWith("$") && isOp(next, "(")) {
        // `$(...)`: shell-quote splits it; it stays one word, as written.
        const end = closingParen(entries, i + 1);
        tokens.push({ type: "word", value: restore(`${entry}(${wordsBetween(entries, i + 2, end)})`) });
        i = end;
      } else if (/^\d+$/.test(entry) && isRedirect(next) && text.includes(`${entry}${next.op}`)) {
        // `2>`: shell-quote gives the descriptor as a word of its own.
        tokens.push({ type: "op", value: `${entry}${next.op}` });
        i++;
      } else tokens.push({ type: "word", value: restore(entry) });
    } else if ("comment" in entry) {
      // A comment runs to the end of its line: what follows the line break is read again.
      const rest = entry.comment.indexOf(LINE_BREAK);
      if (rest !== -1) {
        const after = entry.comment.slice(rest + LINE_BREAK.length);
        tokens.push(
          { type: "op", value: "\n" },
          ...tokensOf(
            parseWords(after, (name) => `$${name}`),
            after,
          ),
        );
      }
    } else if (entry.op === "glob") tokens.push({ type: "word", value: restore(entry.pattern) });
    else tokens.push({ type: "op", value: entry.op });
  }
  return tokens;
}

function isOp(entry: ParseEntry | undefined, op: string): boolean {
  return typeof entry === "object" && "op" in entry && entry.op === op;
}

function isRedirect(entry: ParseEntry | undefined): entry is ParseEntry & { op: string } {
  return typeof entry === "object" && "op" in entry && REDIRECTS.includes(entry.op);
}

/** The index of the `)` that closes the `(` at `open` (the last entry when none does). */
function closingParen(entries: readonly ParseEntry[], open: number): number {
  let depth = 0;
  for (let i = open; i < entries.length; i++) {
    if (isOp(entries[i], "(")) depth++;
    else if (isOp(entries[i], ")") && --depth === 0) return i;
  }
  return entries.length - 1;
}

function wordsBetween(entries: readonly ParseEntry[], from: number, to: number): string {
  return entries
    .slice(from, to)
    .map((entry) =>
      typeof entry === "string"
        ? entry
        : "op" in entry
          ? entry.op === "glob"
            ? entry.pattern
            : entry.op
          : "",
    )
    .join(" ");
}

/** Parsed command lines, by text: runs repeat the same commands, and several evaluators read each one. */
const parsedCache = new Map<string, readonly SimpleCommand[]>();
const readOnlyCache = new Map<string, boolean>();
const CACHE_LIMIT = 20_000;

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}

/** The last command line parsed, and its commands: the rules visiting a call ask about it in turn. */
let lastLine: string | undefined;
let lastParsed: readonly SimpleCommand[] = [];

/** The simple commands of a command line, in order (shared: do not modify them). */
export function parseShell(command: string): readonly SimpleCommand[] {
  if (command === lastLine) return lastParsed;
  // A line of plain words is quick to split: kept in no cache (a long run's are mostly distinct, and
  // a cache of them only keeps them alive).
  const parsed = PLAIN_WORDS.test(command)
    ? withInlineScripts([plainCommand(command)])
    : (parsedCache.get(command) ?? remember(parsedCache, command, parseShellUncached(command)));
  lastLine = command;
  lastParsed = parsed;
  return parsed;
}

function parseShellUncached(command: string): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let current = emptyCommand(false);
  const flush = (nextPiped: boolean) => {
    if (current.words.length > 0 || current.redirects.length > 0 || current.assignments.length > 0) {
      commands.push(current);
    }
    current = emptyCommand(nextPiped);
  };
  const tokens = tokenizeShell(command);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as ShellToken;
    if (token.type === "op") {
      const redirect = /^(\d*)(.+)$/.exec(token.value);
      const op = redirect?.[2] ?? token.value;
      if (REDIRECTS.includes(op)) {
        const next = tokens[i + 1];
        const target = next?.type === "word" ? next.value : "";
        if (next?.type === "word") i++;
        current.redirects.push({
          op: op === "<<-" ? "<<" : op,
          ...(redirect?.[1] ? { fd: Number(redirect[1]) } : {}),
          target,
        });
        if (op === "<<" || op === "<<-") current.heredoc = true;
        continue;
      }
      flush(token.value === "|" || token.value === "|&");
      continue;
    }
    if (current.words.length === 0 && ASSIGNMENT.test(token.value)) {
      current.assignments.push(token.value);
      continue;
    }
    current.words.push(token.value);
  }
  flush(false);
  return withInlineScripts(commands);
}

/** A command line of plain words (see PLAIN_WORDS): one simple command, its leading assignments apart. */
function plainCommand(command: string): SimpleCommand {
  const simple = emptyCommand(false);
  for (const word of plainWords(command)) {
    if (simple.words.length === 0 && ASSIGNMENT.test(word)) simple.assignments.push(word);
    else simple.words.push(word);
  }
  return simple;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** `bash -c 'rm -rf build'` runs rm: the script's commands follow the shell's own. */
function withInlineScripts(commands: SimpleCommand[]): SimpleCommand[] {
  if (!commands.some((simple) => inlineScript(simple) !== undefined)) return commands;
  return commands.flatMap((simple) => {
    const script = inlineScript(simple);
    return script === undefined ? [simple] : [simple, ...parseShell(script)];
  });
}

function emptyCommand(piped: boolean): SimpleCommand {
  return { words: [], assignments: [], redirects: [], piped, heredoc: false };
}

/**
 * Prefixes that run the command after them (`sudo rm` is an rm, so is `find | xargs rm`), with their
 * options that take a value (`sudo -u root rm`: root is not the program).
 */
const WRAPPERS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    sudo: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"],
    doas: ["-u", "-C"],
    env: ["-u", "-C", "-S", "--unset", "--chdir"],
    time: ["-f", "-o"],
    nohup: [],
    nice: ["-n"],
    timeout: ["-s", "-k", "--signal", "--kill-after"],
    xargs: ["-I", "-n", "-P", "-L", "-s", "-d", "-E", "-a", "--max-args", "--max-procs", "--delimiter"],
    command: [],
    exec: ["-a"],
    builtin: [],
  }).map(([name, options]) => [name, new Set(options)]),
);

/** Wrappers whose first argument after the options is theirs, not the command's (`timeout 10 make`). */
const WRAPPER_ARGUMENT = new Set(["timeout"]);

/** The program a simple command runs and its arguments, looking through sudo/env/xargs/timeout/... */
export function programOf(command: SimpleCommand): { program: string; args: string[] } {
  const words = command.words;
  let index = 0;
  while (index < words.length - 1 && WRAPPERS.has(words[index] as string)) {
    const wrapper = words[index] as string;
    const valued = WRAPPERS.get(wrapper) as ReadonlySet<string>;
    index++;
    // Skip the wrapper's own options (and their values) and env's assignments.
    while (index < words.length - 1) {
      const word = words[index] as string;
      if (valued.has(word)) index += 2;
      else if (/^-/.test(word) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) index++;
      else break;
    }
    if (WRAPPER_ARGUMENT.has(wrapper) && index < words.length - 1) index++;
  }
  const program = programName(words[index] ?? "");
  return { program, args: words.slice(index + 1) };
}

/** A line break, which `.` in a regular expression does not match. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/** A program named with its folder (`/usr/bin/rm`) without it, as `word.replace(/^.*\//, "")` gives it. */
function programName(word: string): string {
  const slash = word.lastIndexOf("/");
  if (slash === -1) return word;
  // The regex's `.*` stops at a line break: what is before the last slash of the first line goes.
  return LINE_TERMINATOR.test(word) ? word.replace(/^.*\//, "") : word.slice(slash + 1);
}

/** Shells that run a script given as an argument (`bash -c '...'`). */
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh"]);

/** The script of `bash -c 'script'` (also `-lc`, `-ec`), if the command is one. */
function inlineScript(command: SimpleCommand): string | undefined {
  const { program, args } = programOf(command);
  if (!SHELLS.has(program)) return undefined;
  const flag = args.findIndex((arg) => /^-[a-z]*c[a-z]*$/.test(arg));
  return flag === -1 ? undefined : args[flag + 1];
}

/** Output redirections that write a file (not /dev/null, not another descriptor). */
export function fileWrites(command: SimpleCommand): Redirect[] {
  return command.redirects.filter(
    (redirect) =>
      (redirect.op === ">" ||
        redirect.op === ">>" ||
        redirect.op === ">|" ||
        redirect.op === "&>" ||
        redirect.op === "&>>") &&
      redirect.target !== "/dev/null" &&
      !/^&?\d+$/.test(redirect.target),
  );
}

const READ_ONLY_PROGRAMS = new Set([
  "ls",
  "pwd",
  "cat",
  "head",
  "tail",
  "less",
  "more",
  "wc",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack",
  "which",
  "whereis",
  "type",
  "file",
  "stat",
  "du",
  "df",
  "tree",
  "diff",
  "cmp",
  "comm",
  "uniq",
  "cut",
  "tr",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "jq",
  "yq",
  "nl",
  "od",
  "xxd",
  "hexdump",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "shasum",
  "date",
  "whoami",
  "id",
  "uname",
  "hostname",
  "printenv",
  "echo",
  "printf",
  "cd",
  "pushd",
  "popd",
  "true",
  "false",
  "test",
  "[",
  "column",
  "fold",
  "fmt",
  "paste",
  "rev",
  "seq",
  "sort",
  "sed",
  "awk",
  "find",
  "git",
  "env",
]);

const GIT_READ_ONLY = new Set([
  "status",
  "log",
  "diff",
  "show",
  "blame",
  "rev-parse",
  "ls-files",
  "ls-tree",
  "describe",
  "shortlog",
  "grep",
  "cat-file",
  "rev-list",
  "merge-base",
  "whatchanged",
  "remote",
  "branch",
  "tag",
  "config",
  "reflog",
  "stash",
]);

/**
 * True when a command line only looks: every simple command is a known read-only program (ls, cat,
 * grep, git status, ...) used in a read-only way, nothing is redirected into a file and there is no
 * command substitution. Claude Code's default permission mode allows the same kind of commands.
 */
export function isReadOnlyCommand(commandLine: string): boolean {
  // A line of plain words is judged again each time (as parseShell splits it again): no cache.
  if (PLAIN_WORDS.test(commandLine))
    return mayBeReadOnly(firstWord(commandLine)) && readOnlyUncached(commandLine);
  return (
    readOnlyCache.get(commandLine) ?? remember(readOnlyCache, commandLine, readOnlyUncached(commandLine))
  );
}

function readOnlyUncached(commandLine: string): boolean {
  if (commandLine.includes("$(") || commandLine.includes("`")) return false;
  const commands = parseShell(commandLine);
  if (commands.length === 0) return false;
  return commands.every((command) => {
    if (fileWrites(command).length > 0) return false;
    if (command.words.length === 0) return command.assignments.length === 0;
    const { program, args } = programOf(command);
    if (command.words[0] === "sudo") return false;
    if (!READ_ONLY_PROGRAMS.has(program)) return false;
    switch (program) {
      case "env":
        return args.length === 0;
      case "find":
        return !args.some((arg) => /^-(delete|exec|execdir|ok|okdir|fprint|fprintf|fls)$/.test(arg));
      case "sed":
        return !args.some((arg) => /^-[a-zA-Z]*i/.test(arg) || arg.startsWith("--in-place"));
      case "awk":
        return !args.some((arg) => arg === "inplace" || arg === "-i");
      case "sort":
        return !args.some((arg) => arg === "-o" || arg.startsWith("--output"));
      case "git":
        return isReadOnlyGit(args);
      default:
        return true;
    }
  });
}

/** The first word of a command line of plain words (see PLAIN_WORDS). */
function firstWord(commandLine: string): string {
  let start = 0;
  while (isBlank(commandLine.charCodeAt(start))) start++;
  let end = start;
  while (end < commandLine.length && !isBlank(commandLine.charCodeAt(end))) end++;
  return commandLine.slice(start, end);
}

/** A space or a tab: what separates plain words. */
function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}

/**
 * Whether a plain command line starting with `word` may be read-only: when `word` is no assignment and
 * no wrapper (sudo, env, ...), it is the program its first simple command runs (as programOf reads it).
 */
function mayBeReadOnly(word: string): boolean {
  if (ASSIGNMENT.test(word) || WRAPPERS.has(word)) return true;
  return READ_ONLY_PROGRAMS.has(programName(word));
}

function isReadOnlyGit(args: string[]): boolean {
  // Skip global options such as `-C dir` or `--no-pager`.
  let index = 0;
  while (index < args.length && (args[index] as string).startsWith("-")) {
    index += args[index] === "-C" || args[index] === "-c" ? 2 : 1;
  }
  const sub = args[index];
  const rest = args.slice(index + 1);
  if (!sub || !GIT_READ_ONLY.has(sub)) return false;
  switch (sub) {
    case "branch":
      return !rest.some((arg) => /^-(d|D|m|M|c|C|f)$|^--(delete|move|copy|force|set-upstream)/.test(arg));
    case "tag":
      return (
        rest.length === 0 || rest.every((arg) => arg === "-l" || arg === "--list" || arg.startsWith("-n"))
      );
    case "remote":
      return rest.length === 0 || rest.every((arg) => arg === "-v" || arg === "show" || arg === "get-url");
    case "config":
      return rest.some((arg) => arg === "--get" || arg === "--list" || arg === "-l" || arg === "--get-all");
    case "reflog":
      return rest[0] === undefined || rest[0] === "show" || rest[0].startsWith("-");
    case "stash":
      return rest[0] === "list" || rest[0] === "show";
    default:
      return true;
  }
}

/** The words of a command line with operators kept as their own tokens (`a && b` -> a, &&, b). */
export function shellWords(commandLine: string): string[] {
  return tokenizeShell(commandLine)
    .filter((token) => token.value !== "\n")
    .map((token) => token.value);
}

/** A `/regex/flags` string as a RegExp, or undefined when the text is not written that way. */
export function parseRegexLiteral(text: string): RegExp | undefined {
  const match = /^\/(.+)\/([dgimsuvy]*)$/s.exec(text);
  if (!match) return undefined;
  try {
    return new RegExp(match[1] as string, (match[2] as string).replace(/g|y/g, ""));
  } catch {
    return undefined;
  }
}

/**
 * Whether two Bash commands are "the same command" for trajectory matching: a `/regex/` on either side
 * is tested against the other; otherwise the shorter one's words must appear, contiguously and in
 * order, among the longer one's words (`npm test` matches `cd app && npm test -- --run`).
 */
export function commandsMatch(a: string, b: string): boolean {
  const regexA = parseRegexLiteral(a);
  if (regexA) return regexA.test(b);
  const regexB = parseRegexLiteral(b);
  if (regexB) return regexB.test(a);
  const wordsA = shellWords(a);
  const wordsB = shellWords(b);
  const [short, long] = wordsA.length <= wordsB.length ? [wordsA, wordsB] : [wordsB, wordsA];
  if (short.length === 0) return long.length === 0;
  return containsRun(long, short);
}

function containsRun(haystack: string[], needle: string[]): boolean {
  outer: for (let start = 0; start + needle.length <= haystack.length; start++) {
    for (let offset = 0; offset < needle.length; offset++) {
      if (haystack[start + offset] !== needle[offset]) continue outer;
    }
    return true;
  }
  return false;
}
