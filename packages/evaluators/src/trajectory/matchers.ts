import { canonicalToolName, toolNameVariants } from "@evals/core";
import { globMatcher, hasGlobChars, normalizePath, pathMatches } from "../paths.js";
import { commandsMatch } from "../shell.js";

/**
 * Argument comparison, exactly as agentevals does it (its matchers are re-implemented here so the
 * diagnostics see the same verdicts; tests check both agree). A matcher receives the arguments of the
 * call being matched and of the call it is matched against, in agentevals' order.
 */
export type ArgsMatchMode = "exact" | "ignore" | "subset" | "superset";
export type ToolArgsMatcher = (
  outputArgs: Record<string, unknown>,
  referenceArgs: Record<string, unknown>,
) => boolean;
/** Per tool: another mode, the keys to compare (dotted paths allowed), or a matcher function. */
export type ToolArgsOverride = ArgsMatchMode | string[] | ToolArgsMatcher;
export type ToolArgsOverrides = Record<string, ToolArgsOverride>;

/** agentevals' deep equality (null and undefined are equal). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a == null && b == null) return true;
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || !a || !b) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    return a.every((value, index) => deepEqual(value, b[index]));
  }
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  const recordA = a as Record<string, unknown>;
  const recordB = b as Record<string, unknown>;
  return (
    keysA.every((key) => keysB.includes(key)) &&
    keysB.every((key) => keysA.includes(key)) &&
    keysA.every((key) => deepEqual(recordA[key], recordB[key]))
  );
}

type ValueEquality = (key: string, a: unknown, b: unknown) => boolean;
const plainEquality: ValueEquality = (_key, a, b) => deepEqual(a, b);

/** The comparison of one argument mode, with a pluggable value equality (fuzzy matchers plug theirs). */
export function modeMatcher(mode: ArgsMatchMode, equal: ValueEquality = plainEquality): ToolArgsMatcher {
  switch (mode) {
    case "exact":
      return (output, reference) => {
        if (output == null && reference == null) return true;
        const keysA = Object.keys(output);
        const keysB = Object.keys(reference);
        return (
          keysA.length === keysB.length &&
          keysA.every((key) => keysB.includes(key)) &&
          keysA.every((key) => equal(key, output[key], reference[key]))
        );
      };
    case "subset":
      // Every argument of the output call exists in the reference call with the same value.
      return (output, reference) =>
        Object.entries(output).every(([key, value]) => key in reference && equal(key, reference[key], value));
    case "superset":
      // Every argument of the reference call exists in the output call with the same value.
      return (output, reference) =>
        Object.entries(reference).every(([key, value]) => key in output && equal(key, output[key], value));
    default:
      return () => true;
  }
}

function nestedValue(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split(".")) {
    if (current && typeof current === "object" && part in current)
      current = (current as Record<string, unknown>)[part];
    else return undefined;
  }
  return current;
}

function keysMatcher(keys: string[]): ToolArgsMatcher {
  return (output, reference) =>
    keys.every((key) => deepEqual(nestedValue(output, key), nestedValue(reference, key)));
}

/**
 * The matcher agentevals would use for a tool: the mode's, unless an override names the tool (by any
 * of its names: an override for `Task` applies to `Agent` calls).
 */
export function matcherForTool(
  name: string,
  mode: ArgsMatchMode,
  overrides?: ToolArgsOverrides,
): ToolArgsMatcher {
  const key = overrides
    ? [name, ...toolNameVariants(name)].find((variant) => Object.hasOwn(overrides, variant))
    : undefined;
  const override = overrides && key !== undefined ? overrides[key] : undefined;
  if (typeof override === "string") return modeMatcher(override);
  if (typeof override === "function") return override;
  if (Array.isArray(override)) return keysMatcher(override);
  return modeMatcher(mode);
}

/**
 * Overrides keyed by canonical tool names (`Task` -> `Agent`), later layers winning: what agentevals
 * is given, since it sees canonical names only.
 */
export function canonicalOverrides(
  ...layers: (ToolArgsOverrides | undefined)[]
): ToolArgsOverrides | undefined {
  if (layers.every((layer) => layer === undefined)) return undefined;
  const merged: ToolArgsOverrides = {};
  for (const layer of layers) {
    for (const [name, override] of Object.entries(layer ?? {})) merged[canonicalToolName(name)] = override;
  }
  return merged;
}

/** Case-insensitive containment, either way round. */
function looseContains(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x.includes(y) || y.includes(x);
}

/** Glob patterns that are equal, or where one matches the other (`src/**\/*.ts` vs `src/*.ts`). */
export function globsMatch(a: string, b: string): boolean {
  const x = a.replace(/^\.\//, "");
  const y = b.replace(/^\.\//, "");
  return x === y || globMatcher(x)(y) || globMatcher(y)(x);
}

/**
 * Paths equal after resolving both against the cwd; a glob on either side matches the other; with no
 * cwd, a relative path matches an absolute one that ends with it.
 */
export function pathsMatch(a: string, b: string, cwd?: string): boolean {
  if (hasGlobChars(b) && !hasGlobChars(a)) return pathMatches(a, b, cwd);
  if (hasGlobChars(a) && !hasGlobChars(b)) return pathMatches(b, a, cwd);
  if (normalizePath(a, cwd) === normalizePath(b, cwd)) return true;
  if (cwd) return false;
  const [x, y] = [normalizePath(a), normalizePath(b)];
  return (
    (x.startsWith("/") && !y.startsWith("/") && x.endsWith(`/${y}`)) ||
    (y.startsWith("/") && !x.startsWith("/") && y.endsWith(`/${x}`))
  );
}

type FieldComparator = (a: string, b: string) => boolean;

/** The fuzzy comparisons of Claude Code's tools' arguments, by tool and field. */
function fuzzyFields(cwd: string | undefined): Record<string, Record<string, FieldComparator>> {
  const path: FieldComparator = (a, b) => pathsMatch(a, b, cwd);
  const text: FieldComparator = looseContains;
  return {
    Grep: { pattern: text, path, glob: globsMatch },
    Glob: { pattern: globsMatch, path },
    Read: { file_path: path },
    Write: { file_path: path },
    Edit: { file_path: path },
    MultiEdit: { file_path: path },
    NotebookEdit: { notebook_path: path },
    NotebookRead: { notebook_path: path },
    LS: { path },
    Bash: { command: commandsMatch },
    Agent: { prompt: text, description: text },
    Task: { prompt: text, description: text },
    WebSearch: { query: text },
    WebFetch: { url: text, prompt: text },
    Skill: {
      skill: (a, b) => a.toLowerCase() === b.toLowerCase(),
      command: (a, b) => a.toLowerCase() === b.toLowerCase(),
    },
  };
}

/**
 * The recommended fuzzy matchers, as agentevals `toolArgsMatchOverrides`: Grep patterns by
 * case-insensitive containment, Glob patterns wildcard-aware, file paths of Read/Write/Edit resolved
 * against the run's cwd (absolute or relative), Bash commands by words or `/regex/`, Agent/Task prompts
 * and WebSearch queries by containment. Keys are compared per the argument mode; fields without a fuzzy
 * rule are compared exactly.
 */
export function fuzzyMatchers(
  options: { cwd?: string | undefined; argsMode?: ArgsMatchMode } = {},
): ToolArgsOverrides {
  const mode = options.argsMode ?? "superset";
  const overrides: ToolArgsOverrides = {};
  for (const [tool, fields] of Object.entries(fuzzyFields(options.cwd))) {
    overrides[tool] = modeMatcher(mode, (key, a, b) => {
      const compare = fields[key];
      if (compare && typeof a === "string" && typeof b === "string") return compare(a, b);
      return deepEqual(a, b);
    });
  }
  return overrides;
}

/** Which arguments of two calls differ, for a diagnostic (keys the mode looks at). */
export function argumentDifferences(
  actual: Record<string, unknown>,
  expected: Record<string, unknown>,
  matcher: ToolArgsMatcher,
  mode: ArgsMatchMode,
): { key: string; expected: unknown; actual: unknown }[] {
  const keys =
    mode === "superset"
      ? Object.keys(expected)
      : mode === "subset"
        ? Object.keys(actual)
        : [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
  const differences: { key: string; expected: unknown; actual: unknown }[] = [];
  for (const key of keys) {
    const one = { [key]: actual[key] };
    const other = { [key]: expected[key] };
    if (!(key in actual) || !(key in expected) || !matcher(one, other)) {
      differences.push({ key, expected: expected[key], actual: actual[key] });
    }
  }
  return differences;
}
