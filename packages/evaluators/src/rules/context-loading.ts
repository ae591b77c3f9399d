import type { ToolCallView } from "@evals/core";
import { z } from "zod";
import { ExpectedContextFilesSchema } from "../cases/behavior-schema.js";
import { defineRule } from "../define-rule.js";
import { fraction, pointerTo, RuleOptionsBaseSchema, severityFor, violation } from "../evaluator.js";
import { compilePathPattern, type PathForms, pathForms } from "../paths.js";
import { kindOf, type RunIndex } from "../run-index.js";
import { parseShell, programOf } from "../shell.js";
import { bashCommand, describeCall, filePathOf, isFileWriteTool } from "../tools.js";
import { oacContextProblem } from "./context-task-type.js";

export const CONTEXT_LOADING = "context-loading";

/** Files that hold a project's instructions and conventions. */
export const DEFAULT_CONTEXT_FILES = [
  "CLAUDE.md",
  "CLAUDE.local.md",
  "AGENTS.md",
  "GEMINI.md",
  ".claude/**",
  // OpenCode's agent files and the context files OpenAgentsControl's agents load.
  ".opencode/agent/**",
  ".opencode/context/**",
  "docs/**",
  "README*",
  "CONTRIBUTING*",
  "*standard*",
  "*guideline*",
  "*convention*",
  "**/.cursorrules",
] as const;

export const ContextLoadingOptionsSchema = RuleOptionsBaseSchema.extend({
  /** Paths or globs that count as context files (replaces the defaults). */
  contextFiles: z.array(z.string()).optional(),
  /**
   * Files (paths or globs) that must each be read before the first write; `{ anyOf: [...] }`: at
   * least one of them must be read, at any point of the run.
   */
  expectedContextFiles: ExpectedContextFilesSchema.optional(),
  /**
   * OpenAgentsControl's context check, in place of the default one: a run whose executions are not
   * all Bash must read a context file (`no-context-loaded`), one of them its task type's standard
   * (the first prompt and the calls give code -> standards/code.md, ...: `wrong-context-file`), before
   * any write, edit or delegation (`context-loaded-after-execution`); each an error.
   */
  taskTypes: z.boolean().optional(),
  /** Without expectedContextFiles: a write with no context read first is an error (default: a warning). */
  required: z.boolean().optional(),
  /** A Skill call counts as loading context (default true). */
  countSkills: z.boolean().optional(),
}).strict();

interface ContextRead {
  call: ToolCallView;
  path: string;
  forms: PathForms;
}

/**
 * context-loading: context files (CLAUDE.md, AGENTS.md, `.claude/**`, docs, README, standards) are read
 * before the first write (a file write or a Bash command that changes something). With
 * `expectedContextFiles`, each listed file must be read before the first write (or at all, when the
 * run writes nothing): a missing or late one is an error. Instruction files Claude Code loaded itself
 * (the run's `instructions`: CLAUDE.md and the like, from the InstructionsLoaded hook) count as read
 * at the start: the agent need not Read them.
 */
export const contextLoadingRule = defineRule({
  id: CONTEXT_LOADING,
  summary: "Context files (CLAUDE.md, AGENTS.md, docs, standards) are read before the first write.",
  options: ContextLoadingOptionsSchema,
  // behavior.expectedContextFiles and requiresContext drive it too.
  fromCase: (evalCase) => ({
    ...(evalCase.behavior?.expectedContextFiles
      ? { expectedContextFiles: evalCase.behavior.expectedContextFiles }
      : {}),
    ...(evalCase.behavior?.requiresContext ? { required: true } : {}),
  }),
  evaluate(run, options, { index, evidence, violate, violations }) {
    const patterns = options.contextFiles ?? DEFAULT_CONTEXT_FILES;
    const countSkills = options.countSkills ?? true;
    const firstWrite = index.calls.find((call) => isWriteAction(call, index));
    const reads: ContextRead[] = [];
    // A run reads the same files again and again: one PathForms each.
    const forms = new Map<string, PathForms>();
    const formsOf = (path: string) =>
      forms.get(path) ?? (forms.set(path, pathForms(path, index.cwd)).get(path) as PathForms);
    const skills: ToolCallView[] = [];
    for (const call of index.calls) {
      if (call.name === "Skill" && countSkills) skills.push(call);
      for (const path of filesRead(call)) reads.push({ call, path, forms: formsOf(path) });
    }
    const onTime = (read: ContextRead) => !firstWrite || read.call.index < firstWrite.index;
    const autoLoaded = (run.instructions ?? []).map((file) => ({
      ...file,
      forms: pathForms(file.file_path, index.cwd),
    }));
    const autoEvidence = (file: (typeof autoLoaded)[number]) => ({
      type: "context-loaded",
      description: `${file.file_path} loaded by Claude Code itself${file.load_reason ? ` (${file.load_reason})` : ""}`,
    });
    const writePointer = firstWrite ? pointerTo(firstWrite) : undefined;

    if (options.taskTypes) {
      const problem = oacContextProblem(run, index.calls);
      if (problem) {
        const message = {
          "no-context-loaded": `Task execution (${describeCall(problem.at)}) without any context file read`,
          "wrong-context-file": `Task type '${problem.taskType}' needs one of ${problem.expected.join(", ")}; the context read was ${problem.loaded.join(", ")}`,
          "context-loaded-after-execution": `A write, edit or delegation came before the first context file read (${problem.loaded[0]})`,
        }[problem.type];
        violate(problem.type, "error", message, pointerTo(problem.at), {
          taskType: problem.taskType,
          expected: problem.expected,
          loaded: problem.loaded,
        });
      }
    }
    const anyOf =
      options.expectedContextFiles && !Array.isArray(options.expectedContextFiles)
        ? options.expectedContextFiles.anyOf
        : undefined;
    if (anyOf) {
      const tests = anyOf.map((pattern) => compilePathPattern(pattern, index.cwd));
      const matches = (forms: PathForms) => tests.some((test) => test(forms));
      const auto = autoLoaded.find((file) => matches(file.forms));
      const read = reads.find((item) => matches(item.forms));
      if (auto) evidence.add(() => autoEvidence(auto));
      else if (read)
        evidence.add(() => ({
          type: "context-loaded",
          description: `${read.path} read (one of ${anyOf.join(", ")})`,
          pointer: pointerTo(read.call),
        }));
      else
        violate("missing-context-file", "error", `none of ${anyOf.join(", ")} was read`, writePointer, {
          expected: anyOf,
        });
      return {
        score: auto || read ? 1 : 0,
        metadata: { mode: "any-of", expected: anyOf, filesRead: reads.length },
      };
    }
    const expectedEach = Array.isArray(options.expectedContextFiles)
      ? options.expectedContextFiles
      : undefined;
    if (expectedEach && expectedEach.length > 0) {
      let loaded = 0;
      for (const expected of expectedEach) {
        const matches = compilePathPattern(expected, index.cwd);
        const auto = autoLoaded.find((file) => matches(file.forms));
        if (auto) {
          loaded++;
          evidence.add(() => autoEvidence(auto));
          continue;
        }
        const first = reads.find((read) => matches(read.forms));
        if (first && onTime(first)) {
          loaded++;
          evidence.add(() => ({
            type: "context-loaded",
            description: `${expected} read (${first.path}) before the first write`,
            pointer: pointerTo(first.call),
          }));
        } else if (first && firstWrite) {
          violate(
            "context-loaded-late",
            "error",
            `${expected} was read only after the first write (${describeCall(firstWrite)})`,
            pointerTo(first.call),
            { expected, read_at: first.call.index, first_write_at: firstWrite.index },
          );
        } else {
          violate(
            "missing-context-file",
            "error",
            firstWrite
              ? `${expected} was never read before the first write (${describeCall(firstWrite)})`
              : `${expected} was never read`,
            writePointer,
            { expected },
          );
        }
      }
      return {
        score: fraction(loaded, expectedEach.length),
        metadata: { mode: "explicit", expected: expectedEach, filesRead: reads.length },
      };
    }

    const tests = patterns.map((pattern) => compilePathPattern(pattern, index.cwd));
    const contextReads = reads.filter((read) => tests.some((matches) => matches(read.forms)));
    const loadedFirst = contextReads.filter(onTime);
    const skillsFirst = skills.filter((call) => !firstWrite || call.index < firstWrite.index);
    for (const read of loadedFirst) {
      evidence.add(() => ({
        type: "context-loaded",
        description: `read ${read.path}`,
        pointer: pointerTo(read.call),
      }));
    }
    for (const file of autoLoaded) evidence.add(() => autoEvidence(file));
    for (const call of skillsFirst) {
      evidence.add(() => ({
        type: "context-loaded",
        description: `loaded ${describeCall(call)}`,
        pointer: pointerTo(call),
      }));
    }
    const ok = !firstWrite || loadedFirst.length + skillsFirst.length + autoLoaded.length > 0;
    if (!ok && firstWrite && !options.taskTypes) {
      violations.push(
        violation(
          CONTEXT_LOADING,
          "no-context-loaded",
          severityFor(options, "no-context-loaded", options.required ? "error" : "warning"),
          `No context file (${patterns.slice(0, 4).join(", ")}, ...) was read before the first write (${describeCall(firstWrite)})`,
          writePointer,
          { late: contextReads.map((read) => read.path) },
        ),
      );
    }
    return {
      score: ok ? 1 : 0,
      metadata: {
        mode: "auto",
        contextFilesRead: contextReads.map((read) => read.path),
        contextFilesLoaded: autoLoaded.map((file) => file.file_path),
        firstWriteIndex: firstWrite?.index,
      },
    };
  },
});

/** contextLoading as a function: `contextLoadingRule.check`. */
export const contextLoading = contextLoadingRule.check;

/** A call that changes something: a file write, or a Bash command that is not read-only. */
export function isWriteAction(call: ToolCallView, index: RunIndex): boolean {
  return isFileWriteTool(call.name) || (call.name === "Bash" && kindOf(index, call) === "execute");
}

const BASH_READERS = new Set(["cat", "head", "tail", "less", "more", "bat", "nl"]);

/**
 * The files a call read (when it succeeded or its outcome is unknown): Read's file_path, and the files
 * of `cat`/`head`/`tail`/`less`/`more` in a Bash command.
 */
export function filesRead(call: ToolCallView): string[] {
  if (call.status === "error" || call.status === "denied") return [];
  if (call.name === "Read" || call.name === "NotebookRead") {
    const path = filePathOf(call);
    return path ? [path] : [];
  }
  const command = bashCommand(call);
  if (command === undefined) return [];
  const files: string[] = [];
  for (const simple of parseShell(command)) {
    const { program, args } = programOf(simple);
    if (!BASH_READERS.has(program) || simple.heredoc) continue;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as string;
      if (arg.startsWith("-")) {
        // head -n 5 / tail -n 5: skip the option's value.
        if (/^-[nc]$/.test(arg)) i++;
        continue;
      }
      files.push(arg);
    }
  }
  return files;
}
