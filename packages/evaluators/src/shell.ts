/**
 * A small, forgiving reader of the shell commands agents run through Bash: enough to find each
 * simple command, its words, its redirections and whether it reads from a pipe. It never runs
 * anything and never throws; unbalanced quotes end at the end of the text.
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

const OPERATORS = ["&&", "||", "|&", ";;", "|", ";", "&", "(", ")", "\n"];
const REDIRECTS = ["&>>", "&>", "<<<", "<<-", "<<", ">>", ">&", ">|", "<&", "<>", ">", "<"];

/** Splits a command line into words and operators, removing quotes. Heredoc bodies are dropped. */
export function tokenizeShell(command: string): ShellToken[] {
  const tokens: ShellToken[] = [];
  const pendingHeredocs: { delimiter: string; stripTabs: boolean }[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  const n = command.length;

  const endWord = () => {
    if (inWord) tokens.push({ type: "word", value: word });
    word = "";
    inWord = false;
  };

  while (i < n) {
    const ch = command[i] as string;
    if (ch === "\\" && i + 1 < n) {
      if (command[i + 1] === "\n") {
        i += 2;
        continue;
      }
      word += command[i + 1];
      inWord = true;
      i += 2;
      continue;
    }
    if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      const stop = end === -1 ? n : end;
      word += command.slice(i + 1, stop);
      inWord = true;
      i = stop + 1;
      continue;
    }
    if (ch === '"') {
      i++;
      while (i < n && command[i] !== '"') {
        if (command[i] === "\\" && i + 1 < n && '"\\$`'.includes(command[i + 1] as string)) {
          word += command[i + 1];
          i += 2;
        } else {
          word += command[i];
          i++;
        }
      }
      i++;
      inWord = true;
      continue;
    }
    if (ch === "$" && command[i + 1] === "(") {
      // Command substitution: kept inside the word, verbatim.
      const end = matchingParen(command, i + 1);
      word += command.slice(i, end + 1);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (ch === "`") {
      const end = command.indexOf("`", i + 1);
      const stop = end === -1 ? n : end;
      word += command.slice(i, stop + 1);
      inWord = true;
      i = stop + 1;
      continue;
    }
    if (ch === "#" && !inWord) {
      while (i < n && command[i] !== "\n") i++;
      continue;
    }
    if (ch === " " || ch === "\t" || ch === "\r") {
      endWord();
      i++;
      continue;
    }
    const redirect = REDIRECTS.find((op) => command.startsWith(op, i));
    if (redirect) {
      // A word made only of digits right before the operator is its file descriptor.
      const fd = inWord && /^\d+$/.test(word) ? word : undefined;
      if (fd !== undefined) {
        word = "";
        inWord = false;
      } else endWord();
      tokens.push({ type: "op", value: `${fd ?? ""}${redirect}` });
      i += redirect.length;
      if (redirect === "<<" || redirect === "<<-") {
        while (command[i] === " " || command[i] === "\t") i++;
        const match = /^(['"]?)([A-Za-z0-9_.-]+)\1/.exec(command.slice(i));
        if (match) {
          pendingHeredocs.push({ delimiter: match[2] as string, stripTabs: redirect === "<<-" });
          tokens.push({ type: "word", value: match[2] as string });
          i += match[0].length;
        }
      }
      continue;
    }
    const operator = OPERATORS.find((op) => command.startsWith(op, i));
    if (operator) {
      endWord();
      tokens.push({ type: "op", value: operator });
      i += operator.length;
      if (operator === "\n" && pendingHeredocs.length > 0) {
        i = skipHeredocBodies(command, i, pendingHeredocs.splice(0));
      }
      continue;
    }
    word += ch;
    inWord = true;
    i++;
  }
  endWord();
  return tokens;
}

function matchingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return text.length - 1;
}

function skipHeredocBodies(
  text: string,
  from: number,
  heredocs: { delimiter: string; stripTabs: boolean }[],
): number {
  let i = from;
  for (const heredoc of heredocs) {
    while (i < text.length) {
      const end = text.indexOf("\n", i);
      const line = text.slice(i, end === -1 ? text.length : end);
      i = end === -1 ? text.length : end + 1;
      if ((heredoc.stripTabs ? line.replace(/^\t+/, "") : line).trim() === heredoc.delimiter) break;
    }
  }
  return i;
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

/** The simple commands of a command line, in order (shared: do not modify them). */
export function parseShell(command: string): readonly SimpleCommand[] {
  return parsedCache.get(command) ?? remember(parsedCache, command, parseShellUncached(command));
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
    if (current.words.length === 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(token.value)) {
      current.assignments.push(token.value);
      continue;
    }
    current.words.push(token.value);
  }
  flush(false);
  return commands;
}

function emptyCommand(piped: boolean): SimpleCommand {
  return { words: [], assignments: [], redirects: [], piped, heredoc: false };
}

/** Prefixes that run the command after them (`sudo rm` is an rm). */
const WRAPPERS = new Set(["sudo", "env", "time", "nohup", "nice", "command", "exec", "builtin", "doas"]);

/** The program a simple command runs and its arguments, looking through sudo/env/time/nohup. */
export function programOf(command: SimpleCommand): { program: string; args: string[] } {
  let index = 0;
  while (index < command.words.length - 1 && WRAPPERS.has(command.words[index] as string)) {
    index++;
    // Skip the wrapper's own options and env's assignments.
    while (
      index < command.words.length - 1 &&
      (/^-/.test(command.words[index] as string) ||
        /^[A-Za-z_][A-Za-z0-9_]*=/.test(command.words[index] as string))
    ) {
      index++;
    }
  }
  const program = (command.words[index] ?? "").replace(/^.*\//, "");
  return { program, args: command.words.slice(index + 1) };
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
