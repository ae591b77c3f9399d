import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync, type Stats, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { BUILTIN_TOOLS, toolNameFromOpenCode } from "@evals/core";
import {
  CaseFileError,
  type EvalCaseInput,
  formatIssue,
  hasGlobChars,
  parseCaseText,
  type RuleId,
} from "@evals/evaluators";
import { type Document, isNode, LineCounter, parseDocument, stringify } from "yaml";

/**
 * Converts OpenAgentsControl (OAC) test cases — its YAML format for OpenCode agents — into this
 * package's case files, keeping their meaning, and says what it could not keep: per file and field,
 * never silently (including the fields OAC's own loader strips without a word).
 */

/** The migration report's format version. */
export const MIGRATION_REPORT_VERSION = 1 as const;

/**
 * What became of one field: `converted` (same meaning), `changed` (converted, the meaning adjusted:
 * the note says how), `dropped` (it did nothing in OAC either: display text, a `false` that checks
 * nothing, a field no evaluator reads), `unconverted` (it meant something and has no equivalent here).
 */
export type FieldStatus = "converted" | "changed" | "dropped" | "unconverted";

export interface FieldReport {
  /** The dotted path of the OAC field (`behavior.forbiddenTools`, `prompts.1.delayMs`). */
  field: string;
  status: FieldStatus;
  /** 1-based line of the field in the OAC file, when known. */
  line?: number;
  note?: string;
}

/**
 * What became of one file: `converted` (a case file was made; some fields may be reported),
 * `skipped` (on purpose: a template, an archived copy), `failed` (it cannot be made into a case).
 */
export type FileStatus = "converted" | "skipped" | "failed";

export interface FileReport {
  /** The OAC file, relative to the folder migrated (POSIX separators). */
  file: string;
  status: FileStatus;
  /** Why it was skipped or failed. */
  reason?: string;
  /** The OAC id, when it has one. */
  sourceId?: string;
  /** The id of the case written (differs from sourceId when ids collided). */
  id?: string;
  /** The case file written, relative to the output folder. */
  out?: string;
  fields: FieldReport[];
}

export interface MigrationTotals {
  files: number;
  converted: number;
  /** Converted files with at least one field unconverted. */
  convertedWithLosses: number;
  skipped: number;
  failed: number;
  fields: Record<FieldStatus, number>;
}

export interface MigrationReport {
  version: typeof MIGRATION_REPORT_VERSION;
  source: string;
  files: FileReport[];
  /** Ids used by more than one OAC file: which files, and the ids given to each. */
  duplicateIds: { id: string; files: string[] }[];
  /** Groups of byte-identical OAC files. */
  identicalFiles: string[][];
  totals: MigrationTotals;
}

/** A case file the migration makes: its path relative to the output folder, and its text. */
export interface MigratedFile {
  out: string;
  text: string;
  /** The OAC file it came from. */
  source: string;
}

export interface MigrateOptions {
  /** Convert the `_archive/` copies too (default false: they are reported as skipped). */
  includeArchive?: boolean;
}

/** OAC's categories (test-case-schema.ts). */
const OAC_CATEGORIES = ["developer", "business", "creative", "edge-case"];

/** OAC's `expectedViolations[].rule` values and the rule each is here. */
const OAC_RULES: Record<string, RuleId> = {
  "approval-gate": "approval-gate",
  "context-loading": "context-loading",
  "execution-balance": "execution-balance",
  "tool-usage": "tool-usage",
  delegation: "delegation",
  "stop-on-failure": "stop-on-failure",
  "cleanup-confirmation": "cleanup-confirmation",
  "confirm-cleanup": "cleanup-confirmation",
  "report-first": "report-first",
  "error-handling": "error-handling",
};

/** The violation-type substrings OAC's result-validator.ts matches each rule by, across all evaluators. */
const OAC_RULE_PATTERNS: Record<string, string[]> = {
  "approval-gate": ["approval", "missing-approval"],
  "context-loading": ["context", "no-context-loaded", "missing-context", "wrong-context-file"],
  delegation: ["delegation", "missing-delegation"],
  "tool-usage": ["tool", "suboptimal-tool"],
  "stop-on-failure": ["stop", "failure"],
  "confirm-cleanup": ["cleanup", "confirm"],
  "cleanup-confirmation": ["cleanup", "confirm"],
  "execution-balance": ["execution-balance", "insufficient-read", "execution-before-read", "read-exec-ratio"],
  "report-first": ["report-first", "report"],
};

/**
 * The command output OAC's stop-on-failure-evaluator.ts takes for a failure (its FAILURE_PATTERNS):
 * OpenCode's bash output carries no exit code, so these decide, as they did in OAC.
 */
const OAC_FAILURE_PATTERNS = [
  "/FAIL|FAILED|FAILURE/i",
  "/error:/i",
  "/Error:/",
  "/npm ERR!/i",
  "/test.*failed/i",
  "/tests? failed/i",
  "/\\d+ failed/i",
  "/exit code [1-9]/i",
  "/exited with code [1-9]/i",
  "/build failed/i",
  "/compilation error/i",
  "/TypeError|ReferenceError|SyntaxError/",
  "/AssertionError/i",
  "/Expected.*but got/i",
] as const;

/** OAC's default per-prompt timeout (ms). */
const OAC_DEFAULT_TIMEOUT = 60_000;

/** OAC's default `agent`. */
const OAC_DEFAULT_AGENT = "openagent";

/**
 * The OpenCode agent OAC ran for a case's `agent` (test-executor.ts `agentDisplayMap` in
 * executeTest, v0.5.5); any other value ran "OpenAgent".
 */
const OAC_AGENT_NAMES: Record<string, string> = {
  openagent: "OpenAgent",
  "core/openagent": "OpenAgent",
  opencoder: "OpenCoder",
  "core/opencoder": "OpenCoder",
  "system-builder": "System Builder",
  "meta/system-builder": "System Builder",
};

/**
 * The tools `opencode run` offers an agent (opencode-ai 1.18.33: its tool definitions); OAC's `list`
 * and `patch` are not among them, so a call to them can never happen.
 */
const OPENCODE_RUN_TOOLS = new Set([
  "bash",
  "edit",
  "glob",
  "grep",
  "read",
  "skill",
  "task",
  "todowrite",
  "webfetch",
  "write",
]);

/** The most clauses an OR-of-ANDs `mustUseAnyOf` may turn into. */
const MAX_ANY_OF_GROUPS = 16;

const builtinTools = new Set<string>(BUILTIN_TOOLS);

/** What converting one OAC case gave: the case (unless it failed) and a report per field. */
export interface ConvertedCase {
  case?: EvalCaseInput;
  fields: FieldReport[];
  /** Why no case could be made. */
  error?: string;
}

/**
 * Converts one OAC case (the parsed YAML). `document` (the parsed YAML document with its line
 * counter) lets the report give line numbers.
 */
export function convertOacCase(
  value: unknown,
  source?: { document: Document; lineCounter: LineCounter },
): ConvertedCase {
  const fields: FieldReport[] = [];
  const lineOf = (path: (string | number)[]): number | undefined => {
    if (!source) return undefined;
    const node = source.document.getIn(path, true);
    if (!isNode(node) || !node.range) return undefined;
    return source.lineCounter.linePos(node.range[0]).line;
  };
  const report = (path: (string | number)[], status: FieldStatus, note?: string) => {
    const line = lineOf(path);
    fields.push({
      field: path.join("."),
      status,
      ...(line !== undefined ? { line } : {}),
      ...(note ? { note } : {}),
    });
  };
  if (!isRecord(value)) return { fields, error: "not a YAML mapping (OAC holds one case per file)" };
  if ("test_cases" in value) {
    report(
      ["test_cases"],
      "unconverted",
      "another format (test_cases[] with evaluators[]) that OAC's loader rejects",
    );
    return {
      fields,
      error:
        "another format (name, description, test_cases[] with expected_behavior and evaluators): OAC's own loader rejects it (no id, category, approvalStrategy or prompt)",
    };
  }
  const id = value.id;
  if (typeof id !== "string" || id === "") return { fields, error: "no `id` (OAC requires one)" };

  const out: Record<string, unknown> = {};
  const tags: string[] = [];
  const rules: Record<string, unknown> = {};
  const agent: Record<string, unknown> = {};
  const descriptions: string[] = [];
  const handled = new Set<string>();
  const take = (key: string) => {
    handled.add(key);
    return value[key];
  };

  // id: letters, digits and . _ : / - here.
  take("id");
  const safeId = id.replace(/[^A-Za-z0-9._:/-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "");
  out.id = safeId;
  if (safeId !== id)
    report(["id"], "changed", `id ${JSON.stringify(id)} written as ${JSON.stringify(safeId)}`);
  else report(["id"], "converted");

  const name = take("name");
  if (typeof name === "string") {
    out.name = name;
    report(["name"], "converted");
  }
  const description = take("description");
  if (typeof description === "string") {
    descriptions.push(description.trimEnd());
    report(["description"], "converted");
  }
  const category = take("category");
  if (category !== undefined) {
    tags.push(`category:${String(category)}`);
    report(
      ["category"],
      "converted",
      OAC_CATEGORIES.includes(String(category))
        ? `kept as tag category:${String(category)}`
        : `kept as tag category:${String(category)}; OAC's loader rejects this file (${JSON.stringify(category)} is not one of its categories)`,
    );
  }
  const oacTags = take("tags");
  if (Array.isArray(oacTags)) {
    tags.push(...oacTags.map(String));
    report(["tags"], "converted");
  }

  // prompt / prompts
  let turns = 1;
  const prompt = take("prompt");
  const prompts = take("prompts");
  if (typeof prompt === "string" && prompt.trim() !== "") {
    out.prompt = prompt.trimEnd();
    report(["prompt"], "converted");
  }
  if (Array.isArray(prompts)) {
    const texts: string[] = [];
    prompts.forEach((item, k) => {
      if (!isRecord(item) || typeof item.text !== "string") {
        report(["prompts", k], "unconverted", "a prompt without text");
        return;
      }
      texts.push(item.text.trimEnd());
      for (const key of Object.keys(item)) {
        if (key === "text") continue;
        if (key === "delayMs")
          report(
            ["prompts", k, key],
            "dropped",
            "each turn is sent when the previous one has ended; no delay is needed",
          );
        else if (key === "expectContext" || key === "contextFile")
          report(["prompts", k, key], "dropped", "OAC only logged it");
        else report(["prompts", k, key], "unconverted", "not in OAC's schema (its loader strips it)");
      }
    });
    if (texts.length > 0) {
      if (out.prompt !== undefined) {
        report(
          ["prompts"],
          "unconverted",
          "the case has both prompt and prompts: OAC sends prompts; kept prompts only",
        );
        delete out.prompt;
      }
      out.prompts = texts;
      turns = texts.length;
      report(
        ["prompts"],
        "converted",
        texts.length > 1 ? `${texts.length} turns, sent in order in one session` : undefined,
      );
    }
  }
  if (out.prompt === undefined && out.prompts === undefined)
    return { fields, error: "no prompt: neither `prompt` nor `prompts[].text` is given" };

  // agent and model: the OpenCode agent OAC ran (test-executor.ts), with OpenCode's provider/model.
  agent.cli = "opencode";
  const oacAgent = take("agent");
  if (oacAgent === undefined || typeof oacAgent === "string") {
    const given = oacAgent ?? OAC_DEFAULT_AGENT;
    const name = OAC_AGENT_NAMES[given];
    agent.agentName = name ?? "OpenAgent";
    tags.push(`agent:${given}`);
    if (oacAgent !== undefined)
      report(
        ["agent"],
        "converted",
        name
          ? `agent.options.agentName ${name} (OpenCode's --agent), as OAC's test-executor.ts named it`
          : `agent.options.agentName OpenAgent: OAC's test-executor.ts has no entry for ${JSON.stringify(given)} and ran OpenAgent`,
      );
  } else report(["agent"], "unconverted", "not a string (a template placeholder?)");
  const model = take("model");
  if (typeof model === "string") {
    agent.model = model;
    report(
      ["model"],
      "converted",
      model.startsWith("anthropic/")
        ? "agent.model (OpenCode's provider/model)"
        : "agent.model (OpenCode's provider/model); the loopback model servers speak Anthropic's API only, so record it against the provider",
    );
  }
  const attachments = take("attachments");
  if (attachments !== undefined)
    report(
      ["attachments"],
      Array.isArray(attachments) && attachments.length === 0 ? "dropped" : "unconverted",
      "OAC never implemented attachments",
    );

  // approvalStrategy: how OpenCode's permission prompts were answered.
  const strategy = take("approvalStrategy");
  if (strategy !== undefined) convertApprovalStrategy(strategy, agent, report);

  // behavior
  const oacBehavior = take("behavior");
  let behaviorOut: Record<string, unknown> | undefined;
  if (isRecord(oacBehavior)) {
    behaviorOut = convertBehavior(oacBehavior, report);
  } else if (oacBehavior !== undefined) report(["behavior"], "unconverted", "not a mapping");

  // expectedViolations
  const expectedViolations = take("expectedViolations");
  const violationsOut: Record<string, unknown>[] = [];
  if (Array.isArray(expectedViolations)) {
    expectedViolations.forEach((item, k) => {
      if (!isRecord(item) || typeof item.rule !== "string") {
        report(["expectedViolations", k], "unconverted", "no rule");
        return;
      }
      const rule = OAC_RULES[item.rule];
      if (!rule) {
        report(["expectedViolations", k, "rule"], "unconverted", `no rule ${JSON.stringify(item.rule)} here`);
        return;
      }
      const entry: Record<string, unknown> = { rule };
      report(
        ["expectedViolations", k, "rule"],
        "changed",
        `${rule === item.rule ? "" : `${item.rule} is ${rule} here; `}matched against the ${rule} rule's own violations (OAC's result-validator.ts: any evaluator's violation whose type contains ${(OAC_RULE_PATTERNS[item.rule] ?? [item.rule]).map((pattern) => JSON.stringify(pattern)).join(" or ")})`,
      );
      entry.shouldViolate = item.shouldViolate !== false;
      if (item.shouldViolate === undefined)
        report(["expectedViolations", k, "shouldViolate"], "converted", "absent: true, as in OAC");
      if (item.severity !== undefined)
        report(
          ["expectedViolations", k, "severity"],
          "dropped",
          "OAC's verdict ignores it (result-validator.ts): violations of every severity count, as here without one",
        );
      if (typeof item.violationType === "string") {
        entry.type = item.violationType;
        report(
          ["expectedViolations", k, "violationType"],
          "changed",
          "OAC read it nowhere; here only violations of this type count",
        );
      }
      if (typeof item.description === "string") entry.description = item.description.trim();
      for (const key of Object.keys(item)) {
        if (!["rule", "shouldViolate", "severity", "violationType", "description"].includes(key))
          report(["expectedViolations", k, key], "unconverted", "not in OAC's schema (its loader strips it)");
      }
      // The rules OAC always ran and this package runs only when a case asks.
      if (rule === "report-first" || rule === "error-handling") rules[rule] ??= true;
      violationsOut.push(entry);
    });
  }

  // expected (OAC's deprecated verdict block)
  const expected = take("expected");
  if (isRecord(expected)) {
    for (const [key, item] of Object.entries(expected)) {
      const path = ["expected", key];
      if (key === "pass") {
        if (item === true)
          report(
            path,
            "converted",
            "the case passes when the run succeeds and no rule reports an error (the default)",
          );
        else {
          out.outcome = "any";
          report(
            path,
            "changed",
            "pass: false: any outcome is accepted (outcome: any); OAC then ignored execution errors",
          );
        }
      } else if (key === "notes" && typeof item === "string") {
        descriptions.push(`Notes:\n${item.trimEnd()}`);
        report(path, "converted", "appended to the description");
      } else if (key === "toolCalls") report(path, "dropped", "OAC only displayed it");
      else if (key === "minMessages" || key === "maxMessages")
        report(path, "unconverted", "no message-count check here (OAC counted message events)");
      else report(path, "unconverted", "no equivalent here");
    }
  }

  // timeout: OAC's is per prompt, a case's is for the whole run.
  const timeout = take("timeout");
  if (typeof timeout === "number" && timeout > 0) {
    out.timeout = Math.round(timeout * turns);
    report(
      ["timeout"],
      turns > 1 ? "changed" : "converted",
      turns > 1 ? `${timeout} ms per prompt × ${turns} prompts = ${out.timeout} ms for the run` : undefined,
    );
  } else if (timeout !== undefined)
    report(["timeout"], "unconverted", "not a positive number of milliseconds");
  else out.timeout = OAC_DEFAULT_TIMEOUT * turns;

  for (const key of Object.keys(value)) {
    if (handled.has(key)) continue;
    report([key], "unconverted", "not in OAC's schema: OAC's loader strips it, so OAC never used it either");
  }

  if (descriptions.length > 0) out.description = descriptions.join("\n\n");
  out.tags = [...new Set(tags)];
  if (Object.keys(agent).length > 0) out.agent = withRunnerOptions(agent);
  if (behaviorOut && Object.keys(behaviorOut).length > 0) out.behavior = behaviorOut;
  if (violationsOut.length > 0) out.expectedViolations = violationsOut;
  // OAC ran its context-loading evaluator, task-type check included, on every case; and its
  // execution-balance evaluator with an error for an execution (any bash call included) before any read
  // and a warning under one read per execution.
  rules["context-loading"] = { taskTypes: true };
  rules["execution-balance"] = {
    minReadRatio: 1,
    bashIsExecution: true,
    severity: { "execution-before-read": "error" },
  };
  rules["stop-on-failure"] = { failurePatterns: [...OAC_FAILURE_PATTERNS] };
  // And no evaluator like these two: off, so they cannot fail a case OAC passed.
  rules["read-before-write"] = false;
  rules["forbidden-commands"] = false;
  out.rules = rules;
  return { case: ordered(out) as EvalCaseInput, fields };
}

type Report = (path: (string | number)[], status: FieldStatus, note?: string) => void;

/** OpenCode's own options (its agent, autoApprove) go under `agent.options`; the shared ones stay on top. */
function withRunnerOptions(agent: Record<string, unknown>): Record<string, unknown> {
  const { agentName, autoApprove, ...shared } = agent;
  const options = {
    ...(agentName !== undefined ? { agentName } : {}),
    ...(autoApprove !== undefined ? { autoApprove } : {}),
  };
  return Object.keys(options).length > 0 ? { ...shared, options } : shared;
}

function convertApprovalStrategy(strategy: unknown, agent: Record<string, unknown>, report: Report): void {
  const path = ["approvalStrategy"];
  if (!isRecord(strategy) || typeof strategy.type !== "string") {
    report(path, "unconverted", "no type");
    return;
  }
  const type = strategy.type;
  if (type === "auto-approve") {
    agent.autoApprove = true;
    report(
      [...path, "type"],
      "converted",
      "agent.options.autoApprove: every permission OpenCode asks for is granted (opencode run --auto), what is denied stays denied, as OAC's auto-approve-strategy.ts answered",
    );
  } else if (type === "auto-deny") {
    report(
      [...path, "type"],
      "converted",
      "opencode run rejects every permission it asks for (no --auto), as OAC's auto-deny-strategy.ts answered",
    );
  } else if (type === "smart") {
    const config = isRecord(strategy.config) ? strategy.config : {};
    if (config.defaultDecision === true) agent.autoApprove = true;
    report(
      [...path, "type"],
      "changed",
      `smart: only defaultDecision is kept (${config.defaultDecision === true ? "agent.options.autoApprove" : "asks are rejected"})`,
    );
    for (const key of Object.keys(config)) {
      const at = [...path, "config", key];
      if (key === "defaultDecision") report(at, "converted");
      else
        report(
          at,
          "unconverted",
          "OpenCode's permission config cannot answer by tool list, pattern or count",
        );
    }
  } else report([...path, "type"], "unconverted", `no approval strategy ${JSON.stringify(type)} here`);
  for (const key of Object.keys(strategy)) {
    if (key !== "type" && key !== "config")
      report([...path, key], "unconverted", "not in OAC's schema (its loader strips it)");
  }
}

/** OAC `behavior` -> a case's `behavior`. */
function convertBehavior(oac: Record<string, unknown>, report: Report): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const severity: Record<string, string> = {};
  const base = ["behavior"];
  const toolList = (field: string, value: unknown): string[] => {
    if (!Array.isArray(value)) {
      report([...base, field], "unconverted", "not a list of tool names");
      return [];
    }
    const names: string[] = [];
    value.forEach((name, k) => {
      const mapped = canonicalTool(String(name));
      if (!mapped)
        report(
          [...base, field, k],
          "unconverted",
          `unknown tool ${JSON.stringify(name)}: no call would ever match it`,
        );
      else if (field === "mustUseTools" && !offeredByOpenCode(String(name)))
        report(
          [...base, field, k],
          "unconverted",
          `opencode run does not offer the agent ${JSON.stringify(name)}: the case could never pass with it, so it is left out`,
        );
      else names.push(mapped);
    });
    return names;
  };
  for (const [key, value] of Object.entries(oac)) {
    const path = [...base, key];
    switch (key) {
      case "mustUseTools":
      case "mustNotUseTools": {
        const names = toolList(key, value);
        if (names.length > 0) {
          out[key] = [...new Set([...((out[key] as string[] | undefined) ?? []), ...names])];
          report(path, "converted", `OpenCode tool ids as canonical names: ${names.join(", ")}`);
        }
        break;
      }
      case "forbiddenTools": {
        const names = toolList(key, value);
        if (names.length > 0) {
          out.mustNotUseTools = [
            ...new Set([...((out.mustNotUseTools as string[] | undefined) ?? []), ...names]),
          ];
          report(
            path,
            "changed",
            `not in OAC's schema, so OAC stripped it and never enforced it; converted to mustNotUseTools (${names.join(", ")}) as it was meant: the case now enforces it`,
          );
        }
        break;
      }
      case "mustUseAnyOf": {
        const sets = Array.isArray(value)
          ? value.map((set) => (Array.isArray(set) ? set.map(String) : [String(set)]))
          : value;
        const offered = Array.isArray(sets)
          ? (sets as string[][]).filter((set) => set.every(offeredByOpenCode))
          : sets;
        const left = Array.isArray(sets)
          ? (sets as string[][]).filter((set) => !set.every(offeredByOpenCode))
          : [];
        const groups =
          Array.isArray(offered) && offered.length === 0
            ? "every set names a tool opencode run does not offer"
            : anyOfToAllOf(offered);
        if (typeof groups === "string") report(path, "unconverted", groups);
        else {
          if (left.length > 0)
            report(
              path,
              "changed",
              `left out the set${left.length === 1 ? "" : "s"} ${left.map((set) => `[${set.join(", ")}]`).join(", ")}: opencode run does not offer ${[...new Set(left.flat().filter((name) => !offeredByOpenCode(name)))].join(", ")}, so no run could use ${left.length === 1 ? "it" : "them"}`,
            );
          out.mustUseAnyOf = groups;
          report(
            path,
            left.length > 0 ? "changed" : "converted",
            `OAC: at least one set fully used (an OR of ANDs); written as groups that must each have one tool used (an AND of ORs), the same condition: ${groups.map((group) => `[${group.join(", ")}]`).join(" and ")}`,
          );
        }
        break;
      }
      case "mayUseTools":
        report(path, "dropped", "OAC's evaluators never read it");
        break;
      case "minToolCalls":
        if (typeof value === "number") {
          out.minToolCalls = value;
          report(path, "converted");
        } else report(path, "unconverted", "not a number");
        break;
      case "maxToolCalls":
        if (typeof value === "number") {
          out.maxToolCalls = value;
          severity["too-many-tool-calls"] = "warning";
          report(path, "converted", "a warning, as in OAC (too many calls does not fail the case)");
        } else report(path, "unconverted", "not a number");
        break;
      case "requiresApproval":
      case "requiresContext":
        if (value === true) {
          out[key] = true;
          if (key === "requiresContext")
            report(
              path,
              "changed",
              "a context file (docs/**, README, CONTRIBUTING, .opencode/agent/**, .opencode/context/**, as OAC's, and CLAUDE.md, AGENTS.md and the like) must be read before the first write (OAC's behavior-evaluator.ts: at any point of the run)",
            );
          else
            report(
              path,
              "changed",
              "the agent must ask before its first change (OAC: approval language in any assistant message)",
            );
        } else report(path, "dropped", "false checks nothing in OAC");
        break;
      case "expectedContextFiles":
        if (Array.isArray(value)) {
          out.expectedContextFiles = {
            anyOf: value.map((item) => {
              const path = String(item);
              return path.includes("/") && !hasGlobChars(path) && !path.startsWith("**/")
                ? `**/${path}`
                : path;
            }),
          };
          report(
            path,
            "changed",
            "anyOf: one of these read, matched by the path's end (**/<path>; a bare name by base name), as test-case-schema.ts documents it; OAC 0.5.5's context-loading-evaluator.ts only logged the list, its verdict coming from the task-type check (rules.context-loading.taskTypes here)",
          );
        } else report(path, "unconverted", "not a list");
        break;
      case "shouldDelegate":
        if (value === true) {
          out.shouldDelegate = true;
          severity["did-not-delegate"] = "warning";
          report(path, "converted", "not delegating is a warning, as in OAC");
        } else report(path, "dropped", "false checks nothing in OAC");
        break;
      case "expectedResponse":
        if (isRecord(value)) {
          const response: Record<string, unknown> = {};
          for (const [part, item] of Object.entries(value)) {
            if ((part === "contains" || part === "notContains") && Array.isArray(item)) {
              response[part] = item.map(String);
              report(
                [...path, part],
                "converted",
                "checked on all the agent's text of every turn, case-sensitive (scope: all), as OAC's behavior-evaluator.ts joined it",
              );
            } else if (part === "description") report([...path, part], "dropped", "display text");
            else report([...path, part], "unconverted", "no equivalent here");
          }
          if (Object.keys(response).length > 0)
            out.expectedResponse = { ...response, caseSensitive: true, scope: "all" };
        } else report(path, "unconverted", "not a mapping");
        break;
      case "mustUseDedicatedTools":
        report(
          path,
          "dropped",
          "in OAC's schema, read by none of its evaluators (this package's tool-usage rule checks it, on by default)",
        );
        break;
      case "expectedAgent":
      case "expectedModel":
        report(path, "unconverted", "no agent/model check here (OAC's agent-model evaluator)");
        break;
      default:
        report(
          path,
          "unconverted",
          "not in OAC's schema: OAC's loader strips it, so OAC never checked it either",
        );
    }
  }
  if (Object.keys(severity).length > 0) out.severity = severity;
  // OAC's behavior-evaluator.ts judged the session it prompted: the main agent's calls, not its subagents'.
  if (Object.keys(out).length > 0) out.agent = "main";
  return out;
}

/** Whether `opencode run` offers the agent this tool (an OpenCode id; other names are not OpenCode's to judge). */
function offeredByOpenCode(name: string): boolean {
  return toolNameFromOpenCode(name) === undefined || OPENCODE_RUN_TOOLS.has(name);
}

/** A tool name as the canonical one: OpenCode's id mapped, a Claude Code name kept; else undefined. */
function canonicalTool(name: string): string | undefined {
  return (
    toolNameFromOpenCode(name) ?? (builtinTools.has(name) || name.startsWith("mcp__") ? name : undefined)
  );
}

/**
 * OAC's `mustUseAnyOf` (at least one inner set fully used: an OR of ANDs) as this package's groups
 * (one tool of each group used: an AND of ORs), by distributing and dropping groups that a smaller
 * group implies. A message when it cannot.
 */
export function anyOfToAllOf(value: unknown): string[][] | string {
  if (!Array.isArray(value) || value.length === 0) return "not a list of tool sets";
  const sets: string[][] = [];
  for (const set of value) {
    const names = Array.isArray(set) ? set.map(String) : [String(set)];
    const mapped = names.map(canonicalTool);
    const unknown = names.filter((_, k) => mapped[k] === undefined);
    if (unknown.length > 0) return `unknown tool ${unknown.map((name) => JSON.stringify(name)).join(", ")}`;
    sets.push([...new Set(mapped as string[])]);
  }
  let clauses: string[][] = [[]];
  for (const set of sets) {
    const next: string[][] = [];
    for (const clause of clauses) for (const name of set) next.push([...new Set([...clause, name])]);
    clauses = minimal(next);
    if (clauses.length > MAX_ANY_OF_GROUPS)
      return `more than ${MAX_ANY_OF_GROUPS} groups once written as groups of alternatives`;
  }
  return clauses
    .map((clause) => [...clause].sort())
    .sort((a, b) => a.length - b.length || a.join().localeCompare(b.join()));
}

/** The clauses no other clause is a subset of (a smaller group implies a larger one). */
function minimal(clauses: string[][]): string[][] {
  const unique = [...new Map(clauses.map((clause) => [[...clause].sort().join("\u0000"), clause])).values()];
  return unique.filter(
    (clause) =>
      !unique.some(
        (other) =>
          other !== clause && other.length < clause.length && other.every((name) => clause.includes(name)),
      ),
  );
}

/** The keys of a case in the order a reader expects them. */
function ordered(value: Record<string, unknown>): Record<string, unknown> {
  const order = [
    "id",
    "name",
    "description",
    "tags",
    "prompt",
    "prompts",
    "agent",
    "timeout",
    "outcome",
    "behavior",
    "expectedViolations",
    "rules",
  ];
  const out: Record<string, unknown> = {};
  for (const key of order) if (value[key] !== undefined) out[key] = value[key];
  for (const [key, item] of Object.entries(value)) if (!(key in out)) out[key] = item;
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A YAML file found under the folder migrated, or why an entry was passed over. */
type FoundFile = { file: string; text: string } | { file: string; skip: string };

/**
 * Every .yaml/.yml file under a folder, in path order (relative, POSIX separators), with its text. A
 * symbolic link to a file is read through; a link to a folder is not followed (it may loop), a
 * dangling link, a folder or file that cannot be read and anything that is not a regular file are
 * passed over with the reason, never an error.
 */
function yamlFiles(dir: string): FoundFile[] {
  const found: FoundFile[] = [];
  const relativeOf = (path: string) => relative(dir, path).split(sep).join("/");
  const walk = (folder: string) => {
    let names: string[];
    try {
      names = readdirSync(folder).sort();
    } catch (error) {
      found.push({
        file: relativeOf(folder) || ".",
        skip: `a folder that cannot be read (${errorCode(error)})`,
      });
      return;
    }
    for (const name of names) {
      if (name === "node_modules" || name === ".git") continue;
      const path = join(folder, name);
      const isYaml = /\.ya?ml$/i.test(name);
      let entry: Stats;
      try {
        entry = lstatSync(path);
      } catch (error) {
        if (isYaml) found.push({ file: relativeOf(path), skip: `cannot be read (${errorCode(error)})` });
        continue;
      }
      if (entry.isSymbolicLink()) {
        let target: Stats | undefined;
        try {
          target = statSync(path);
        } catch (error) {
          found.push({
            file: relativeOf(path),
            skip: `a symbolic link that leads nowhere (${errorCode(error)}: ${readlinkOrEmpty(path)})`,
          });
          continue;
        }
        if (target.isDirectory()) {
          found.push({
            file: relativeOf(path),
            skip: `a symbolic link to a folder (${readlinkOrEmpty(path)}): not followed, as it may loop`,
          });
          continue;
        }
        entry = target;
      }
      if (entry.isDirectory()) walk(path);
      else if (!isYaml) continue;
      else if (!entry.isFile()) found.push({ file: relativeOf(path), skip: "not a regular file" });
      else {
        try {
          found.push({ file: relativeOf(path), text: readFileSync(path, "utf8") });
        } catch (error) {
          found.push({ file: relativeOf(path), skip: `cannot be read (${errorCode(error)})` });
        }
      }
    }
  };
  walk(dir);
  return found;
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

function readlinkOrEmpty(path: string): string {
  try {
    return `-> ${readlinkSync(path)}`;
  } catch {
    return "";
  }
}

/**
 * Why a file is a generator template, not a case (or undefined): it sits in OAC's command templates,
 * or a field's whole value is a `{placeholder}` (which YAML reads as a mapping). A placeholder inside
 * a string (a prompt about `/users/{user-id}`) is text, not a template.
 */
function templateReason(file: string, text: string): string | undefined {
  if (
    /(^|\/)\.opencode\/command\//.test(file) ||
    /^[ \t]*[\w.-]+:[ \t]*\{[a-z]+(-[a-z]+)+\}[ \t]*$/m.test(text)
  )
    return "a generator template (with {placeholder} fields), not a case: OAC never runs it";
  return undefined;
}

/** The top-level keys of OAC's case format (test-case-schema.ts), and the other format of its repo-manager tests. */
const OAC_CASE_KEYS = [
  "id",
  "prompt",
  "prompts",
  "approvalStrategy",
  "behavior",
  "expectedViolations",
  "expected",
  "test_cases",
];

/** Why a parsed YAML file is not an OAC case at all (a workflow, a config), or undefined. */
function notACaseReason(value: unknown): string | undefined {
  if (isRecord(value) && OAC_CASE_KEYS.some((key) => key in value)) return undefined;
  return `not an OAC case (none of ${OAC_CASE_KEYS.slice(0, 6).join(", ")}): a workflow, config or other YAML file`;
}

/** Where a converted case goes: the same relative path, `.yaml` kept. */
function outPathOf(file: string): string {
  return file.replace(/\.ya?ml$/i, ".yaml");
}

/**
 * The agent folder of an OAC case path (`evals/agents/core/openagent/tests/x.yaml` -> `core/openagent`),
 * used to tell cases with the same id apart.
 */
function agentDirOf(file: string): string {
  const match = /(?:^|\/)agents\/(.+?)\/tests\//.exec(file);
  return match ? (match[1] as string) : file.replace(/\/[^/]*$/, "");
}

/**
 * Converts every OAC case under `dir`: returns the case files to write and the report. Nothing is
 * written. Each converted case is checked with this package's loader; a case it rejects is reported
 * as failed, never written.
 */
export function migrateOacCases(
  dir: string,
  options: MigrateOptions = {},
): { report: MigrationReport; outputs: MigratedFile[] } {
  const found = yamlFiles(dir);
  const reports: FileReport[] = [];
  const converted: { report: FileReport; evalCase: EvalCaseInput }[] = [];
  const byHash = new Map<string, string[]>();
  const texts = new Map<string, string>();
  const files: string[] = [];
  for (const entry of found) {
    if ("skip" in entry) {
      reports.push({ file: entry.file, status: "skipped", reason: entry.skip, fields: [] });
      continue;
    }
    const { file, text } = entry;
    files.push(file);
    texts.set(file, text);
    const hash = createHash("sha256").update(text).digest("hex");
    byHash.set(hash, [...(byHash.get(hash) ?? []), file]);
  }
  const identicalOf = new Map<string, string[]>();
  for (const group of byHash.values())
    if (group.length > 1) for (const file of group) identicalOf.set(file, group);

  for (const file of files) {
    const text = texts.get(file) as string;
    const template = templateReason(file, text);
    if (template) {
      reports.push({ file, status: "skipped", reason: template, fields: [] });
      continue;
    }
    const lineCounter = new LineCounter();
    const document = parseDocument(text, { lineCounter, prettyErrors: false });
    if (document.errors.length > 0) {
      const error = document.errors[0];
      const line = error ? lineCounter.linePos(error.pos[0]).line : undefined;
      reports.push({
        file,
        status: "failed",
        reason: `invalid YAML${line ? ` at line ${line}` : ""}: ${error?.message.split("\n")[0]}`,
        fields: [],
      });
      continue;
    }
    let value: unknown;
    try {
      value = document.toJS();
    } catch (error) {
      reports.push({
        file,
        status: "failed",
        reason: `invalid YAML: ${(error as Error).message}`,
        fields: [],
      });
      continue;
    }
    const notACase = notACaseReason(value);
    if (notACase) {
      reports.push({ file, status: "skipped", reason: notACase, fields: [] });
      continue;
    }
    const sourceId = isRecord(value) && typeof value.id === "string" ? value.id : undefined;
    const archived = /(^|\/)_archive\//.test(file);
    if (archived && !options.includeArchive) {
      const identical = (identicalOf.get(file) ?? []).filter((other) => other !== file);
      const active = identical.filter((other) => !/(^|\/)_archive\//.test(other));
      reports.push({
        file,
        status: "skipped",
        reason: `an archived copy under _archive/ (OAC's runner globbed it too)${
          active.length > 0
            ? `; byte-identical to ${active.join(", ")}`
            : identical.length > 0
              ? `; byte-identical to ${identical.join(", ")}`
              : ""
        }; --include-archive converts it`,
        ...(sourceId ? { sourceId } : {}),
        fields: [],
      });
      continue;
    }
    const result = convertOacCase(value, { document, lineCounter });
    if (!result.case) {
      reports.push({
        file,
        status: "failed",
        reason: result.error ?? "cannot be converted",
        ...(sourceId ? { sourceId } : {}),
        fields: result.fields,
      });
      continue;
    }
    const report: FileReport = {
      file,
      status: "converted",
      ...(sourceId ? { sourceId } : {}),
      id: result.case.id,
      out: outPathOf(file),
      fields: result.fields,
    };
    reports.push(report);
    converted.push({ report, evalCase: result.case });
  }

  // Duplicate ids: each case gets its agent folder as a prefix (then its file name), never merged.
  const duplicateIds: { id: string; files: string[] }[] = [];
  const byId = new Map<string, typeof converted>();
  for (const item of converted) byId.set(item.evalCase.id, [...(byId.get(item.evalCase.id) ?? []), item]);
  for (const [id, group] of byId) {
    if (group.length < 2) continue;
    duplicateIds.push({ id, files: group.map((item) => item.report.file) });
    const qualified = group.map((item) => `${agentDirOf(item.report.file)}/${id}`);
    group.forEach((item, k) => {
      let next = qualified[k] as string;
      // Still shared (two files of one agent): the file's own path tells them apart.
      if (qualified.filter((other) => other === next).length > 1)
        next = `${item.report.file.replace(/^evals\/agents\//, "").replace(/\.ya?ml$/i, "")}:${id}`;
      item.evalCase.id = next.replace(/[^A-Za-z0-9._:/-]+/g, "-");
      item.report.id = item.evalCase.id;
      const others = group.filter((other) => other !== item).map((other) => other.report.file);
      item.report.fields.unshift({
        field: "id",
        status: "changed",
        note: `id ${JSON.stringify(id)} is also used by ${others.join(", ")}: written as ${JSON.stringify(item.evalCase.id)}`,
      });
    });
  }

  // Write nothing the loader would reject.
  const outputs: MigratedFile[] = [];
  for (const item of converted) {
    const text = caseFileText(item.report.file, item.evalCase);
    try {
      parseCaseText(text, item.report.out as string, { onWarning: () => {} });
      outputs.push({ out: item.report.out as string, text, source: item.report.file });
    } catch (error) {
      item.report.status = "failed";
      item.report.reason = `the converted case does not load: ${
        error instanceof CaseFileError ? error.issues.map(formatIssue).join("; ") : (error as Error).message
      }`;
      delete item.report.out;
    }
  }

  reports.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const identicalFiles = [...byHash.values()].filter((group) => group.length > 1);
  return {
    report: {
      version: MIGRATION_REPORT_VERSION,
      source: dir,
      files: reports,
      duplicateIds,
      identicalFiles,
      totals: migrationTotals(reports),
    },
    outputs,
  };
}

/** The counts of a migration: files by status, fields by status. */
export function migrationTotals(files: FileReport[]): MigrationTotals {
  const fields: Record<FieldStatus, number> = { converted: 0, changed: 0, dropped: 0, unconverted: 0 };
  for (const file of files) for (const field of file.fields) fields[field.status]++;
  const converted = files.filter((file) => file.status === "converted");
  return {
    files: files.length,
    converted: converted.length,
    convertedWithLosses: converted.filter((file) =>
      file.fields.some((field) => field.status === "unconverted"),
    ).length,
    skipped: files.filter((file) => file.status === "skipped").length,
    failed: files.filter((file) => file.status === "failed").length,
    fields,
  };
}

/** A converted case as a YAML file, with a header that says where it came from. */
function caseFileText(source: string, evalCase: EvalCaseInput): string {
  return `# Migrated from OpenAgentsControl ${source} by evals migrate.\n${stringify(
    { version: 1, ...evalCase },
    { lineWidth: 0 },
  )}`;
}
