import { posix } from "node:path";
import picomatch from "picomatch";

/**
 * File paths as agents write them: absolute or relative to the run's working directory, with `./`,
 * `..` or a trailing slash. Paths are compared after resolving them against the cwd; the result is
 * POSIX-style (Claude Code reports POSIX paths on every platform we run it on).
 */
export function normalizePath(path: string, cwd?: string): string {
  // The rules visiting a call ask about its path in turn.
  if (path === lastPath && cwd === lastCwd) return lastNormalized;
  lastPath = path;
  lastCwd = cwd;
  lastNormalized = normalizedByCwd(path, cwd);
  return lastNormalized;
}

/** The last path normalizePath was asked about, its cwd, and its answer. */
let lastPath: string | undefined;
let lastCwd: string | undefined;
let lastNormalized = "";

function normalizedByCwd(path: string, cwd: string | undefined): string {
  // By cwd, then path: no key string made for each call of a long run.
  let byPath = normalizedCache.get(cwd ?? "");
  if (byPath === undefined) {
    if (normalizedCache.size >= 100) normalizedCache.clear();
    byPath = new Map();
    normalizedCache.set(cwd ?? "", byPath);
  }
  let normalized = byPath.get(path);
  if (normalized === undefined) {
    normalized = normalizeUncached(path, cwd);
    if (byPath.size >= 50_000) byPath.clear();
    byPath.set(path, normalized);
  }
  return normalized;
}

/** Runs read and write the same files over and over: cwd -> path -> normalized path. */
const normalizedCache = new Map<string, Map<string, string>>();

function normalizeUncached(path: string, cwd?: string): string {
  const slashed = path.replace(/\\/g, "/");
  const resolved = slashed.startsWith("/") || !cwd ? slashed : `${cwd.replace(/\\/g, "/")}/${slashed}`;
  const normalized = posix.normalize(resolved);
  return normalized.length > 1 ? normalized.replace(/\/+$/, "") : normalized;
}

/** The path relative to the cwd when it is inside it, else the normalized absolute path. */
export function relativeToCwd(path: string, cwd?: string): string {
  const absolute = normalizePath(path, cwd);
  if (!cwd) return absolute.replace(/^\.\//, "");
  const root = normalizePath(cwd);
  if (absolute === root) return ".";
  return absolute.startsWith(`${root}/`) ? absolute.slice(root.length + 1) : absolute;
}

export function hasGlobChars(text: string): boolean {
  return /[*?[\]{}]/.test(text);
}

const matcherCache = new Map<string, (path: string) => boolean>();

/** A cached picomatch matcher (dotfiles included). */
export function globMatcher(pattern: string): (path: string) => boolean {
  let matcher = matcherCache.get(pattern);
  if (!matcher) {
    matcher = picomatch(pattern, { dot: true });
    if (matcherCache.size > 1000) matcherCache.clear();
    matcherCache.set(pattern, matcher);
  }
  return matcher;
}

/** A path resolved once, in the forms patterns compare against. */
export interface PathForms {
  absolute: string;
  /** Relative to the cwd when inside it, else absolute. */
  relative: string;
  base: string;
}

export function pathForms(path: string, cwd?: string): PathForms {
  const absolute = normalizePath(path, cwd);
  const relative = relativeToCwd(absolute, cwd);
  return { absolute, relative, base: posix.basename(absolute) };
}

const compiledPatterns = new Map<string, (forms: PathForms) => boolean>();

/**
 * A path or glob compiled into a test over PathForms. Both sides are taken relative to the cwd when
 * they are not absolute; a pattern without a slash also matches by base name (`CLAUDE.md` matches
 * `docs/CLAUDE.md`).
 */
export function compilePathPattern(pattern: string, cwd?: string): (forms: PathForms) => boolean {
  const key = `${cwd ?? ""}\u0000${pattern}`;
  let test = compiledPatterns.get(key);
  if (test) return test;
  const bySlash = !pattern.includes("/");
  if (!hasGlobChars(pattern)) {
    const absolute = normalizePath(pattern, cwd);
    test = (forms) => forms.absolute === absolute || (bySlash && forms.base === pattern);
  } else {
    const expected = pattern.startsWith("/") ? relativeToCwd(pattern, cwd) : pattern.replace(/^\.\//, "");
    const matcher = globMatcher(expected);
    const byBase = !expected.includes("/");
    test = (forms) => matcher(forms.relative) || (byBase && matcher(forms.base));
  }
  if (compiledPatterns.size > 1000) compiledPatterns.clear();
  compiledPatterns.set(key, test);
  return test;
}

/** Whether a file path matches an expected path or glob (see compilePathPattern). */
export function pathMatches(path: string, pattern: string, cwd?: string): boolean {
  return compilePathPattern(pattern, cwd)(pathForms(path, cwd));
}
