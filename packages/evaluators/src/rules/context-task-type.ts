import { eventsOfType, MAIN_AGENT, type Run, type ToolCallView } from "@evals/core";
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

/** OAC's task type of a run: from its calls (bash only, delegation), else from its first prompt's words. */
export function contextTaskType(firstPrompt: string, executions: ToolCallView[]): ContextTaskType {
  const modifies = executions.some((call) => call.name !== "Bash");
  if (!modifies && executions.length > 0) return "bash-only";
  if (executions.some((call) => isDelegationTool(call.name))) return "delegation";
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
 */
export function oacContextProblem(run: Run, calls: ToolCallView[]): OacContextProblem | undefined {
  const main = calls.filter((call) => call.agent === MAIN_AGENT);
  const executions = main.filter(isExecution);
  const first = executions[0];
  if (!first) return undefined;
  const prompt = eventsOfType(run, "user_message").find(
    (event) => event.agent === MAIN_AGENT && !event.notification,
  );
  const taskType = contextTaskType(prompt?.text ?? "", executions);
  if (taskType === "bash-only") return undefined;
  const expected = CONTEXT_FILES_BY_TASK_TYPE[taskType];
  const contextReads = main.filter((call) => {
    if (!READ_TOOLS.has(call.name) || call.status === "error" || call.status === "denied") return false;
    const path = pathOf(call);
    return path !== undefined && OAC_CONTEXT_PATTERNS.some((pattern) => pattern.test(path));
  });
  const loaded = contextReads.map((call) => pathOf(call) as string);
  const problem = (type: OacContextProblem["type"]) => ({ type, taskType, expected, loaded, at: first });
  if (loaded.length === 0) return problem("no-context-loaded");
  const fits =
    expected.length === 0 ||
    loaded.some((path) => expected.some((file) => path.includes(file) || path.endsWith(file)));
  if (!fits) return problem("wrong-context-file");
  const firstRead = contextReads[0] as ToolCallView;
  const early = executions.some((call) => call.name !== "Bash" && call.index < firstRead.index);
  return early ? problem("context-loaded-after-execution") : undefined;
}

function pathOf(call: ToolCallView): string | undefined {
  const input = call.input as Record<string, unknown>;
  const path = input.file_path ?? input.filePath ?? input.path;
  return typeof path === "string" ? path : undefined;
}
