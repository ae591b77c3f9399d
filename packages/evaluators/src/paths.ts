import { posix } from "node:path";
import picomatch from "picomatch";

/**
 * File paths as agents write them: absolute or relative to the run's working directory, with `./`,
 * `..` or a trailing slash. Paths are compared after resolving them against the cwd; the result is
 * POSIX-style (Claude Code reports POSIX paths on every platform we run it on).
 */
export function normalizePath(path: string, cwd?: string): string {
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

/**
 * Whether a file path matches an expected path or glob, both taken relative to the cwd when they are
 * not absolute. A pattern without a slash also matches by base name (`CLAUDE.md` matches
 * `docs/CLAUDE.md`).
 */
export function pathMatches(path: string, pattern: string, cwd?: string): boolean {
  const actual = relativeToCwd(path, cwd);
  if (!hasGlobChars(pattern)) {
    if (normalizePath(path, cwd) === normalizePath(pattern, cwd)) return true;
    return !pattern.includes("/") && posix.basename(actual) === pattern;
  }
  const expected = pattern.startsWith("/") ? relativeToCwd(pattern, cwd) : pattern.replace(/^\.\//, "");
  if (globMatcher(expected)(actual)) return true;
  return !expected.includes("/") && globMatcher(expected)(posix.basename(actual));
}
