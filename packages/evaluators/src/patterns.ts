import { parseRegexLiteral } from "./shell.js";

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const wildcardCache = new Map<string, RegExp>();

/** A `*`-wildcard text pattern (`git push *`) as an anchored RegExp. */
export function globToRegExp(pattern: string): RegExp {
  let regex = wildcardCache.get(pattern);
  if (!regex) {
    regex = new RegExp(`^${pattern.split("*").map(escapeRegExp).join(".*")}$`, "s");
    if (wildcardCache.size > 1000) wildcardCache.clear();
    wildcardCache.set(pattern, regex);
  }
  return regex;
}

/**
 * A text pattern from options or a case file: `/regex/flags` is a regular expression; anything else is
 * matched as a phrase, ignoring differences in whitespace (`rm  -rf` matches `rm -rf`).
 */
export interface TextPattern {
  source: string;
  test(text: string): boolean;
}

export function textPattern(source: string): TextPattern {
  const regex = parseRegexLiteral(source);
  if (regex) return { source, test: (text) => regex.test(text) };
  const phrase = collapseSpaces(source);
  return { source, test: (text) => collapseSpaces(text).includes(phrase) };
}

export function collapseSpaces(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
