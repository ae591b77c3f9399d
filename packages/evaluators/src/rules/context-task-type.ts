import { MAIN_AGENT, type ToolCallView } from "@evals/core";
import type { RunVisitor } from "../run-visit.js";
import { isDelegationTool } from "../tools.js";

/**
 * OpenAgentsControl's check that the context file loaded fits the task (its context-loading
 * evaluator, evals/framework/src/evaluators/context-loading-evaluator.ts, v0.5.5): the first prompt
 * and the calls made give a task type, each task type has its standard file, and a run that loaded
 * context files, none of them the standard of its task type, loaded the wrong one.
 */

/** OAC's task types (types/index.ts `TaskType`). */
export type ContextTaskType = "code" | "docs" | "tests" | "review" | "delegation" | "bash-only" | "unknown";

/** The context files each task type needs, any one of them, matched as OAC does (a path containing or ending with it). */
export const CONTEXT_FILES_BY_TASK_TYPE: Readonly<Record<ContextTaskType, readonly string[]>> = {
  code: [".opencode/context/core/standards/code.md", "standards/code.md", "code.md"],
  docs: [".opencode/context/core/standards/docs.md", "standards/docs.md", "docs.md"],
  tests: [".opencode/context/core/standards/tests.md", "standards/tests.md", "tests.md"],
  review: [".opencode/context/core/workflows/review.md", "workflows/review.md", "review.md"],
  delegation: [".opencode/context/core/workflows/delegation.md", "workflows/delegation.md", "delegation.md"],
  "bash-only": [],
  unknown: [],
};

/** What OAC counts as a context file (its `contextPatterns`). */
const OAC_CONTEXT_PATTERNS = [
  /\.opencode\/agent\/.*\.md$/,
  /\.opencode\/context\/.*\.md$/,
  /docs\/.*\.md$/,
  /standards\/.*\.md$/,
  /workflows\/.*\.md$/,
  /CONTRIBUTING\.md$/,
  /README\.md$/,
];

/** Prompt words → task type, most specific first (OAC's `classifyTaskType`). */
const TASK_WORDS: [RegExp, ContextTaskType][] = [
  [/test|spec|jest|vitest|mocha|pytest|unittest/i, "tests"],
  [/document|readme|docs|jsdoc|tsdoc|docstring/i, "docs"],
  [/review|audit|check|analyze|inspect/i, "review"],
  [/create|implement|write|add|build|develop|code|function|class|component/i, "code"],
  [/refactor|fix|update|modify|change|edit/i, "code"],
];

/** The calls OAC calls "execution": bash, write, edit, task. */
function isExecution(call: ToolCallView): boolean {
  return call.name === "Bash" || call.name === "Write" || call.name === "Edit" || isDelegationTool(call.name);
}

/** The calls OAC calls "read tools" (read, glob, grep, list) and the path each names. */
const READ_TOOLS = new Set(["Read", "Glob", "Grep", "LS"]);

/** What a run's executions were (OAC's task type depends on no more of them). */
export interface ExecutionKinds {
  /** Any execution at all. */
  any: boolean;
  /** Any that is not Bash (a write, edit or delegation). */
  modifies: boolean;
  delegates: boolean;
}

/** OAC's task type of a run: from its calls (bash only, delegation), else from its first prompt's words. */
export function contextTaskType(firstPrompt: string, executions: ExecutionKinds): ContextTaskType {
  if (!executions.modifies && executions.any) return "bash-only";
  if (executions.delegates) return "delegation";
  for (const [pattern, type] of TASK_WORDS) if (pattern.test(firstPrompt)) return type;
  return "unknown";
}

/** What OAC's context-loading evaluator found wrong in a run (undefined: nothing). */
export interface OacContextProblem {
  /**
   * no-context-loaded: the run executed (not bash only) and read no context file at all;
   * wrong-context-file: it read some, none of them its task type's standard;
   * context-loaded-after-execution: a write, edit or delegation came before any context read.
   */
  type: "no-context-loaded" | "wrong-context-file" | "context-loaded-after-execution";
  taskType: ContextTaskType;
  expected: readonly string[];
  loaded: string[];
  /** The first execution call (OAC reports every one of these there). */
  at: ToolCallView;
}

/**
 * OAC's context-loading check on a run's main agent (context-loading-evaluator.ts `evaluate`): a run
 * with executions that are not all bash must have read a context file (OAC's patterns, by
 * read/glob/grep/list, at any point), one of them its task type's standard (unknown: any), and
 * every write, edit or delegation must come after a context read. All three are errors in OAC.
 * A visitor of the run (hand it the run's events and calls): `end` tells the problem. It keeps the
 * first prompt and execution, what kinds of execution there were and the context files read.
 */
export function oacContextCheck(): RunVisitor<OacContextProblem | undefined> {
  let prompt: string | undefined;
  let first: ToolCallView | undefined;
  const kinds: ExecutionKinds = { any: false, modifies: false, delegates: false };
  /** A write, edit or delegation came before any context read. */
  let early = false;
  const loaded: string[] = [];
  // A run reads the same files again and again: `loaded` holds one copy of each path.
  const paths = new Map<string, string>();
  return {
    event(event) {
      if (
        prompt === undefined &&
        event.type === "user_message" &&
        event.agent === MAIN_AGENT &&
        !event.notification
      )
        prompt = event.text;
    },
    call(call) {
      if (call.agent !== MAIN_AGENT) return;
      if (isExecution(call)) {
        first ??= call;
        kinds.any = true;
        if (call.name !== "Bash") {
          kinds.modifies = true;
          if (loaded.length === 0) early = true;
        }
        if (isDelegationTool(call.name)) kinds.delegates = true;
        return;
      }
      if (!READ_TOOLS.has(call.name) || call.status === "error" || call.status === "denied") return;
      const path = pathOf(call);
      if (path === undefined) return;
      const known = paths.get(path);
      if (known !== undefined) loaded.push(known);
      else if (OAC_CONTEXT_PATTERNS.some((pattern) => pattern.test(path))) {
        paths.set(path, path);
        loaded.push(path);
      }
    },
    end() {
      const at = first;
      if (!at) return undefined;
      const taskType = contextTaskType(prompt ?? "", kinds);
      if (taskType === "bash-only") return undefined;
      const expected = CONTEXT_FILES_BY_TASK_TYPE[taskType];
      const problem = (type: OacContextProblem["type"]) => ({ type, taskType, expected, loaded, at });
      if (loaded.length === 0) return problem("no-context-loaded");
      const fits =
        expected.length === 0 ||
        loaded.some((path) => expected.some((file) => path.includes(file) || path.endsWith(file)));
      if (!fits) return problem("wrong-context-file");
      return early ? problem("context-loaded-after-execution") : undefined;
    },
  };
}

function pathOf(call: ToolCallView): string | undefined {
  const input = call.input as Record<string, unknown>;
  const path = input.file_path ?? input.filePath ?? input.path;
  return typeof path === "string" ? path : undefined;
}
