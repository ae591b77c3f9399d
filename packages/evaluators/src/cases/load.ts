import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, isAbsolute, join, resolve } from "node:path";
import { BUILTIN_TOOLS, isKnownToolName } from "@evals/core";
import { type Document, isMap, isNode, isPair, isScalar, LineCounter, parseAllDocuments, visit } from "yaml";
import type { z } from "zod";
import { defaultRuleRegistry, type RuleRegistry } from "../rules/registry.js";
import { caseJsonSchema, caseSchemaFor, type EvalCaseSchema } from "./case-schema.js";
import type { AgentOptions, EvalCase } from "./schema.js";
import { canonicalizeCaseToolNames } from "./tool-names.js";

/** One problem in a case file: where it is and what is wrong. */
export interface CaseIssue {
  file: string;
  /** 1-based, when known. */
  line?: number;
  column?: number;
  /** The dotted path of the field (`behavior.mustUseTools.0`). */
  field?: string;
  message: string;
}

/** A case file that cannot be used, with every problem found in it. */
export class CaseFileError extends Error {
  override readonly name = "CaseFileError";
  constructor(
    readonly file: string,
    readonly issues: CaseIssue[],
    /** True when the file itself could not be read (missing, a folder, a FIFO, no permission): nothing in it was checked. */
    readonly unreadable = false,
  ) {
    super(issues.map(formatIssue).join("\n"));
  }
  get line(): number | undefined {
    return this.issues[0]?.line;
  }
  get field(): string | undefined {
    return this.issues[0]?.field;
  }
}

export function formatIssue(issue: CaseIssue): string {
  const at =
    issue.line !== undefined ? `:${issue.line}${issue.column !== undefined ? `:${issue.column}` : ""}` : "";
  return `${issue.file}${at}${issue.field ? ` (field ${issue.field})` : ""}: ${issue.message}`;
}

/** Options of the case readers. */
export interface CaseReadOptions {
  /**
   * Called with each warning: a case that loads but likely says something it does not mean (an
   * unknown tool name). Default: `process.emitWarning` (printed on stderr).
   */
  onWarning?: (warning: CaseIssue) => void;
  /**
   * More checks of each loaded case (paths resolved), beyond the schema: each problem it returns, at
   * `path` in the case (e.g. `["agent", "fixture"]`), makes the file invalid, with its line and
   * field. The harness checks fixtures this way, so `evals validate` and `evals run` agree.
   */
  check?: (evalCase: LoadedCase) => { path: (string | number)[]; message: string }[];
  /** The rules the cases may name (default: the built-in ones, `defaultRuleRegistry`). */
  rules?: RuleRegistry;
}

function emitCaseWarning(warning: CaseIssue): void {
  process.emitWarning(formatIssue(warning), { code: "EVALS_CASE" });
}

/** A case read from a file, with the file it came from (fixture paths are resolved against it). */
export type LoadedCase = EvalCase & { file: string };

const parsed = new WeakSet<object>();

/**
 * Validates a case given as an object, whose `rules` and `expectedViolations` may name the rules of
 * `rules` (default: the built-in ones). Errors name the field (no lines: there is no file).
 */
export function parseCase(
  value: unknown,
  source = "<case>",
  rules: RuleRegistry = defaultRuleRegistry,
): EvalCase {
  if (value && typeof value === "object" && parsed.has(value)) return value as EvalCase;
  // A loaded case copied with changes ({ ...loaded, threshold }) still carries the file it came from.
  const { file, ...fields } = (value && typeof value === "object" ? value : {}) as { file?: unknown };
  if (typeof file === "string") {
    const evalCase = { ...parseCase(fields, source, rules), file } as LoadedCase;
    parsed.add(evalCase);
    return evalCase;
  }
  const result = caseSchemaFor(rules).safeParse(value);
  if (!result.success) {
    throw new CaseFileError(
      source,
      result.error.issues.flatMap(closestIssues).map((issue) => ({
        file: source,
        ...fieldOf(issue),
        message: messageOf(issue, rules),
      })),
    );
  }
  canonicalizeCaseToolNames(result.data);
  const invalid = invalidPatterns(result.data);
  if (invalid.length > 0) {
    throw new CaseFileError(
      source,
      invalid.map((problem) => ({ file: source, field: problem.path.join("."), message: problem.message })),
    );
  }
  parsed.add(result.data);
  return result.data;
}

/** Writes a case in code with type checking; throws a CaseFileError when it is invalid. */
export function defineCase(input: z.input<typeof EvalCaseSchema>): EvalCase {
  return parseCase(input, `case ${JSON.stringify(input?.id ?? "?")}`);
}

/**
 * Reads the cases in a YAML or JSON text: a YAML file may hold several documents (`---`), a JSON file
 * an array of cases. Every problem is reported with its file, line and field.
 */
export function parseCaseText(text: string, file: string, options: CaseReadOptions = {}): LoadedCase[] {
  const onWarning = options.onWarning ?? emitCaseWarning;
  const isJson = extname(file).toLowerCase() === ".json";
  if (isJson) {
    try {
      JSON.parse(text);
    } catch (error) {
      throw new CaseFileError(file, [
        {
          file,
          ...jsonErrorPosition(text, error as Error),
          message: `invalid JSON: ${(error as Error).message}`,
        },
      ]);
    }
  }
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter, uniqueKeys: !isJson, prettyErrors: false });
  const list = Array.isArray(documents) ? documents : [];
  const syntax: CaseIssue[] = [];
  for (const document of list) {
    for (const error of document.errors) {
      const position = lineCounter.linePos(error.pos[0]);
      syntax.push({
        file,
        line: position.line,
        column: position.col,
        message: `invalid ${isJson ? "JSON" : "YAML"}: ${error.message.split("\n")[0]}`,
      });
    }
  }
  if (syntax.length > 0) throw new CaseFileError(file, syntax);

  const entries: { document: Document; prefix: (string | number)[]; value: unknown }[] = [];
  for (const document of list) {
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: 100 });
    } catch (error) {
      // An alias bomb ("excessive alias count"), or an alias yaml cannot resolve: say where.
      throw new CaseFileError(file, [
        {
          file,
          ...firstAliasPosition(document, lineCounter),
          message: `invalid ${isJson ? "JSON" : "YAML"}: ${(error as Error).message}`,
        },
      ]);
    }
    if (value === null || value === undefined) continue;
    if (!Array.isArray(value)) entries.push({ document, prefix: [], value });
    else
      for (const [index, item] of value.entries()) entries.push({ document, prefix: [index], value: item });
  }
  if (entries.length === 0)
    throw new CaseFileError(file, [{ file, line: 1, message: "the file holds no case" }]);

  const issues: CaseIssue[] = [];
  const cases: LoadedCase[] = [];
  for (const entry of entries) {
    const result = caseSchemaFor(options.rules).safeParse(entry.value);
    if (!result.success) {
      for (const issue of result.error.issues.flatMap(closestIssues)) {
        const path = [
          ...entry.prefix,
          ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part)),
        ];
        const position = locate(entry.document, lineCounter, path, issue);
        issues.push({
          file,
          ...position,
          ...fieldOf(issue),
          message: messageOf(issue, options.rules ?? defaultRuleRegistry),
        });
      }
      continue;
    }
    const evalCase = result.data;
    // OpenCode's tool ids (bash, read, task...) are accepted: matched as Bash, Read, Agent.
    canonicalizeCaseToolNames(evalCase);
    const invalid = invalidPatterns(evalCase);
    // A problem found past the schema, located at its field in this entry's YAML.
    const issueAt = (problem: { path: (string | number)[]; message: string }): CaseIssue => {
      const path = [...entry.prefix, ...problem.path];
      return {
        file,
        ...locate(entry.document, lineCounter, path, { code: "custom", path, message: "" } as never),
        field: problem.path.join("."),
        message: problem.message,
      };
    };
    for (const problem of invalid) issues.push(issueAt(problem));
    if (invalid.length > 0) continue;
    for (const warning of caseWarnings(evalCase)) {
      onWarning({ ...issueAt(warning), field: [...entry.prefix, ...warning.path].join(".") });
    }
    evalCase.agent = resolveAgentPaths(evalCase.agent, dirname(file));
    const loaded = { ...evalCase, file } as LoadedCase;
    const checked = options.check?.(loaded) ?? [];
    for (const problem of checked) issues.push(issueAt(problem));
    if (checked.length > 0) continue;
    parsed.add(loaded);
    cases.push(loaded);
  }
  const seen = new Map<string, LoadedCase>();
  for (const evalCase of cases) {
    if (seen.has(evalCase.id))
      issues.push({ file, field: "id", message: `duplicate case id ${JSON.stringify(evalCase.id)}` });
    seen.set(evalCase.id, evalCase);
  }
  if (issues.length > 0) throw new CaseFileError(file, issues);
  return cases;
}

/**
 * The case's agent options with its fixture made absolute against `base`, the case file's folder. The
 * runner's own path options (`agent.options`) are resolved where the runner is known: see @evals/core's
 * resolveOptionPaths.
 */
export function resolveAgentPaths(agent: AgentOptions, base: string): AgentOptions {
  if (agent.fixture === undefined) return agent;
  return { ...agent, fixture: isAbsolute(agent.fixture) ? agent.fixture : resolve(base, agent.fixture) };
}

/** The line and column of the document's first alias (`*name`), else of the document. */
function firstAliasPosition(
  document: Document,
  lineCounter: LineCounter,
): { line?: number; column?: number } {
  let offset: number | undefined;
  visit(document, {
    Alias(_key, node) {
      offset = node.range?.[0];
      return visit.BREAK;
    },
  });
  offset ??= document.range?.[0];
  if (offset === undefined) return {};
  const position = lineCounter.linePos(offset);
  return { line: position.line, column: position.col };
}

/** Every case in a file. */
export function loadCases(file: string, options: CaseReadOptions = {}): LoadedCase[] {
  return parseCaseText(readCaseText(file), file, options);
}

/** A case file's text; a file that cannot be read is a CaseFileError saying why. */
function readCaseText(file: string): string {
  const unreadable = (why: string) =>
    new CaseFileError(file, [{ file, message: `cannot read the case file: ${why}` }], true);
  try {
    // Only a regular file is read: a FIFO would wait for a writer forever, a device may never end.
    if (!statSync(file).isFile()) throw unreadable("not a regular file (a case file is a YAML or JSON file)");
    return readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof CaseFileError) throw error;
    const { code, message } = error as NodeJS.ErrnoException;
    throw unreadable(code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : message);
  }
}

/** The one case in a file (an error when it holds several). */
export function loadCase(file: string, options: CaseReadOptions = {}): LoadedCase {
  const cases = loadCases(file, options);
  if (cases.length !== 1) {
    throw new CaseFileError(file, [
      { file, message: `expected one case, found ${cases.length} (use loadCases)` },
    ]);
  }
  return cases[0] as LoadedCase;
}

const CASE_FILE = /\.(ya?ml|json)$/i;

/**
 * The case files (.yaml, .yml, .json) in a folder and its subfolders, sorted (node_modules and
 * hidden entries skipped): the files loadCaseDir reads.
 */
export function caseFilesIn(dir: string): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (CASE_FILE.test(name)) files.push(path);
    }
  };
  walk(dir);
  return files;
}

/**
 * Every case under a folder (its .yaml, .yml and .json files, recursively, in path order). Ids must be
 * unique across the folder. All files are checked before anything is returned.
 */
export function loadCaseDir(dir: string, options: CaseReadOptions = {}): LoadedCase[] {
  const files = caseFilesIn(dir);
  const issues: CaseIssue[] = [];
  const cases: LoadedCase[] = [];
  const ids = new Map<string, string>();
  for (const file of files) {
    try {
      for (const evalCase of loadCases(file, options)) {
        const other = ids.get(evalCase.id);
        if (other)
          issues.push({
            file,
            field: "id",
            message: `case id ${JSON.stringify(evalCase.id)} is also used in ${other}`,
          });
        ids.set(evalCase.id, file);
        cases.push(evalCase);
      }
    } catch (error) {
      if (error instanceof CaseFileError) issues.push(...error.issues);
      else throw error;
    }
  }
  if (issues.length > 0) throw new CaseFileError(dir, issues);
  return cases;
}

/**
 * A value none of a union's forms took, as the issues of the form it came closest to (their paths
 * from the case's root), so the message names the wrong field itself and what it wanted rather than
 * "invalid input". Closest: a form that took the value's type (its issues are inside the value: a
 * rule's options object, not `true`/`false`), then the fewest issues.
 */
function closestIssues(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return [issue];
  const wrongType = (issues: z.core.$ZodIssue[]) => (issues.some((inner) => inner.path.length === 0) ? 1 : 0);
  const [closest = []] = [...issue.errors].sort((a, b) => wrongType(a) - wrongType(b) || a.length - b.length);
  return closest.flatMap((inner) =>
    closestIssues({ ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue),
  );
}

function fieldOf(issue: z.core.$ZodIssue): { field?: string } {
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys" && issue.keys.length > 0) path.push(issue.keys[0] as string);
  return path.length > 0 ? { field: path.join(".") } : {};
}

/**
 * `/regex/flags` texts in `behavior`, `rules` and `expectedTrajectory` that are no valid regular
 * expression: a rule would crash on one, or take it for a plain phrase that never matches.
 */
function invalidPatterns(evalCase: EvalCase): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  const visit = (value: unknown, path: (string | number)[]) => {
    if (typeof value === "string") {
      const literal = /^\/(.+)\/([dgimsuvy]*)$/s.exec(value);
      if (!literal) return;
      try {
        new RegExp(literal[1] as string, literal[2] as string);
      } catch (error) {
        problems.push({
          path,
          message: `${JSON.stringify(value)} is not a valid regular expression: ${(error as Error).message}`,
        });
      }
    } else if (Array.isArray(value)) {
      for (const [k, item] of value.entries()) visit(item, [...path, k]);
    } else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
    }
  };
  for (const field of ["behavior", "rules", "expectedTrajectory"] as const) {
    visit(evalCase[field], [field]);
  }
  return problems;
}

/**
 * What a valid case likely gets wrong: tool names Claude Code does not know (`bash` for `Bash`, a
 * typo) in `behavior` and `expectedTrajectory`, which would silently never match. Paths are the
 * fields' paths in the case.
 */
export function caseWarnings(evalCase: EvalCase): { path: (string | number)[]; message: string }[] {
  const warnings: { path: (string | number)[]; message: string }[] = [];
  const check = (name: string, path: (string | number)[]) => {
    if (name.includes("*") || isKnownToolName(name)) return;
    const guess = closestToolName(name);
    warnings.push({
      path,
      message: `unknown tool ${JSON.stringify(name)}${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ""}: no call will ever match it (tool names are case-sensitive; MCP tools are mcp__<server>__<tool>)`,
    });
  };
  const behavior = evalCase.behavior ?? {};
  for (const field of ["mustUseTools", "mayUseTools", "mustNotUseTools"] as const) {
    for (const [k, name] of (behavior[field] ?? []).entries()) check(name, ["behavior", field, k]);
  }
  for (const [k, group] of (behavior.mustUseAnyOf ?? []).entries()) {
    if (typeof group === "string") check(group, ["behavior", "mustUseAnyOf", k]);
    else for (const [l, name] of group.entries()) check(name, ["behavior", "mustUseAnyOf", k, l]);
  }
  const trajectory = evalCase.expectedTrajectory;
  if (trajectory) {
    const steps = Array.isArray(trajectory) ? trajectory : trajectory.calls;
    const base = Array.isArray(trajectory) ? ["expectedTrajectory"] : ["expectedTrajectory", "calls"];
    const toolOf = (call: string | { tool: string }) => (typeof call === "string" ? call : call.tool);
    for (const [k, step] of steps.entries()) {
      if (Array.isArray(step)) for (const [l, call] of step.entries()) check(toolOf(call), [...base, k, l]);
      else check(toolOf(step), [...base, k]);
    }
  }
  return warnings;
}

/** The built-in tool a misspelt name most likely meant (same letters in another case, or 2 edits). */
function closestToolName(name: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of BUILTIN_TOOLS) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

function messageOf(issue: z.core.$ZodIssue, rules: RuleRegistry): string {
  if (issue.code === "unrecognized_keys") {
    const names = issue.keys.map((key) => {
      const guess = closestFieldName(key, issue.path, rules);
      return `${JSON.stringify(key)}${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ""}`;
    });
    // An unknown entry of `rules` is most often a rule of the user's own that was not loaded.
    const hint =
      issue.path.at(-1) === "rules"
        ? ": a rule of your own must be loaded (`evals --rules <module>`; in code, `defaultRuleRegistry.with(rule)`)"
        : "";
    return `unknown field${issue.keys.length > 1 ? "s" : ""} ${names.join(", ")}${hint}`;
  }
  if (issue.code === "invalid_value" && issue.values.length > 1) {
    return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
  }
  return issue.message;
}

/**
 * The line and column of the node a zod issue is about: the value at its path, the key of an unknown
 * field, or, for a missing field, the nearest enclosing node that exists.
 */
function locate(
  document: Document,
  lineCounter: LineCounter,
  path: (string | number)[],
  issue: z.core.$ZodIssue,
): { line?: number; column?: number } {
  const at = (offset: number | undefined) => {
    if (offset === undefined) return {};
    const position = lineCounter.linePos(offset);
    return { line: position.line, column: position.col };
  };
  for (let length = path.length; length >= 0; length--) {
    const node = length === 0 ? document.contents : document.getIn(path.slice(0, length), true);
    if (!isNode(node) || !node.range) continue;
    if (length === path.length && issue.code === "unrecognized_keys" && isMap(node)) {
      const pair = node.items.find(
        (item) => isPair(item) && isScalar(item.key) && issue.keys.includes(String(item.key.value)),
      );
      if (pair && isPair(pair) && isNode(pair.key) && pair.key.range) return at(pair.key.range[0]);
    }
    if (length < path.length && isMap(node)) {
      // The field is missing, or its value is empty: point at its key when it is there.
      const key = path[length];
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === key);
      if (pair && isPair(pair) && isNode(pair.key) && pair.key.range) return at(pair.key.range[0]);
    }
    return at(node.range[0]);
  }
  return {};
}

type SchemaNode = Record<string, unknown>;

/** The node itself and the branches of its anyOf / oneOf / allOf, recursively. */
function branches(node: unknown): SchemaNode[] {
  if (!node || typeof node !== "object") return [];
  const record = node as SchemaNode;
  const nested = ["anyOf", "oneOf", "allOf"].flatMap((key) =>
    Array.isArray(record[key]) ? (record[key] as unknown[]).flatMap(branches) : [],
  );
  return [record, ...nested];
}

/** The field names the case allows in the object at `path` (every branch of a union). */
function fieldNamesAt(path: readonly PropertyKey[], rules: RuleRegistry): string[] {
  let nodes: SchemaNode[] = [caseJsonSchema(rules)];
  for (const part of path) {
    nodes = nodes.flatMap(branches).flatMap((node) => {
      if (typeof part === "number")
        return node.items && typeof node.items === "object" ? [node.items as SchemaNode] : [];
      const properties = node.properties as Record<string, SchemaNode> | undefined;
      return properties && Object.hasOwn(properties, String(part))
        ? [properties[String(part)] as SchemaNode]
        : [];
    });
  }
  const names = new Set<string>();
  for (const node of nodes.flatMap(branches)) {
    for (const name of Object.keys((node.properties as object | undefined) ?? {})) names.add(name);
  }
  return [...names];
}

/**
 * The field, among those allowed where the unknown one was written, closest to it (at most two
 * edits away). Never the name that was typed: a field of another object is not a suggestion here.
 */
function closestFieldName(
  name: string,
  path: readonly PropertyKey[],
  rules: RuleRegistry,
): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of fieldNamesAt(path, rules)) {
    if (candidate === name) continue;
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

function jsonErrorPosition(text: string, error: Error): { line?: number; column?: number } {
  const lineColumn = /line (\d+) column (\d+)/.exec(error.message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /position (\d+)/.exec(error.message);
  if (!position) return {};
  const offset = Number(position[1]);
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}
