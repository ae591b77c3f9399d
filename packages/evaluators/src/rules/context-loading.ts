import type { EventPointer, Evidence, RunEvent, ToolCallView } from "@evals/core";
import { z } from "zod";
import { ExpectedContextFilesSchema } from "../cases/behavior-schema.js";
import { defineRule, type RuleOutcome } from "../define-rule.js";
import {
  type EvidenceLog,
  fraction,
  MAX_EVIDENCE,
  pointerTo,
  RuleOptionsBaseSchema,
  severityFor,
  violation,
} from "../evaluator.js";
import { compilePathPattern, type PathForms, pathForms } from "../paths.js";
import type { RunSoFar } from "../run-visit.js";
import { parseShell, programOf } from "../shell.js";
import { bashCommand, describeCall, filePathOf, isFileWriteTool } from "../tools.js";
import { oacContextCheck } from "./context-task-type.js";

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

/** A file read: the first read of it that counts (or any, where only the path is wanted). */
interface ContextRead {
  path: string;
  pointer: EventPointer;
  /** Before the first write (or the run writes nothing). */
  onTime: boolean;
}

/** A file the run read: its path and forms, and which watched tests (`testedBy`) it matches. */
interface KnownFile {
  path: string;
  forms: PathForms;
  testedBy: readonly ((forms: PathForms) => boolean)[] | undefined;
  hits: boolean[];
  /** Whether it matches any of them. */
  anyHit: boolean;
}

/**
 * Items for evidence given at the end, in order: the first MAX_EVIDENCE, and how many more (a
 * rule's EvidenceLog lists no more than that), so a long run's reads are not all kept.
 */
class LaterEvidence<Item> {
  private readonly items: Item[] = [];
  private more = 0;

  push(item: Item): void {
    if (this.items.length < MAX_EVIDENCE) this.items.push(item);
    else this.more++;
  }

  get length(): number {
    return this.items.length + this.more;
  }

  addTo(log: EvidenceLog, make: (item: Item) => Evidence): void {
    for (const item of this.items) log.add(() => make(item));
    // The log holds MAX_EVIDENCE items by now: it counts these without making them.
    for (let i = 0; i < this.more; i++) log.add(() => make(this.items[0] as Item));
  }
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
  visit(options, { index, evidence, violate, violations }) {
    const patterns = options.contextFiles ?? DEFAULT_CONTEXT_FILES;
    const countSkills = options.countSkills ?? true;
    const anyOf =
      options.expectedContextFiles && !Array.isArray(options.expectedContextFiles)
        ? options.expectedContextFiles.anyOf
        : undefined;
    const expectedEach =
      Array.isArray(options.expectedContextFiles) && options.expectedContextFiles.length > 0
        ? options.expectedContextFiles
        : undefined;
    const oac = options.taskTypes ? oacContextCheck() : undefined;

    let firstWrite: ToolCallView | undefined;
    let filesReadCount = 0;
    // A run reads the same files again and again: one PathForms each (and one copy of its path), and
    // which of the watched tests it matches (worked out again only if the cwd, so the tests, changed).
    const forms = new Map<string, KnownFile>();
    const formsOf = (path: string) => {
      let known = forms.get(path);
      if (!known) {
        known = { path, forms: pathForms(path, index.cwd), testedBy: undefined, hits: [], anyHit: false };
        forms.set(path, known);
      }
      return known;
    };
    // The files watched (any-of's, the expected ones or the context patterns), matched against the cwd
    // the run has when its calls are read (the init line that gives it comes first).
    const watched = anyOf ?? expectedEach ?? patterns;
    const compiled = new Map<string | undefined, ((forms: PathForms) => boolean)[]>();
    const watchedTests = () => {
      let tests = compiled.get(index.cwd);
      if (!tests) {
        tests = watched.map((pattern) => compilePathPattern(pattern, index.cwd));
        compiled.set(index.cwd, tests);
      }
      return tests;
    };
    /** any-of: the first read of one of the files. */
    let anyOfRead: ContextRead | undefined;
    /** explicit: the first read of each expected file. */
    const firstReadOf: (ContextRead | undefined)[] = (expectedEach ?? []).map(() => undefined);
    /** auto: every context file read, in order (paths: the metadata lists them all). */
    const contextFilesRead: string[] = [];
    const contextReadsFirst = new LaterEvidence<ContextRead>();
    const skillsFirst = new LaterEvidence<{ pointer: EventPointer; description: string }>();

    const contextRead = (file: KnownFile, call: ToolCallView, onTime: boolean): ContextRead => ({
      path: file.path,
      pointer: pointerTo(call),
      onTime,
    });
    const read = (call: ToolCallView, onTime: boolean) => {
      const paths = filesRead(call);
      if (paths.length === 0) return;
      const tests = watchedTests();
      for (const path of paths) {
        filesReadCount++;
        const file = formsOf(path);
        if (file.testedBy !== tests) {
          file.testedBy = tests;
          file.hits = tests.map((matches) => matches(file.forms));
          file.anyHit = file.hits.includes(true);
        }
        // Most files a run reads are none of those watched.
        if (!file.anyHit) continue;
        if (anyOf) {
          if (!anyOfRead) anyOfRead = contextRead(file, call, onTime);
        } else if (expectedEach) {
          file.hits.forEach((hit, i) => {
            if (!firstReadOf[i] && hit) firstReadOf[i] = contextRead(file, call, onTime);
          });
        } else {
          contextFilesRead.push(file.path);
          if (onTime) contextReadsFirst.push(contextRead(file, call, onTime));
        }
      }
    };

    const visitCall = (call: ToolCallView): void => {
      oac?.call?.(call);
      if (!firstWrite && isWriteAction(call, index)) firstWrite = call;
      const onTime = !firstWrite;
      if (call.name === "Skill" && countSkills && onTime)
        skillsFirst.push({ pointer: pointerTo(call), description: `loaded ${describeCall(call)}` });
      read(call, onTime);
    };

    const end = (): RuleOutcome => {
      const autoLoaded = (index.meta.instructions ?? []).map((file) => ({
        ...file,
        forms: pathForms(file.file_path, index.cwd),
      }));
      const autoEvidence = (file: (typeof autoLoaded)[number]) => ({
        type: "context-loaded",
        description: `${file.file_path} loaded by Claude Code itself${file.load_reason ? ` (${file.load_reason})` : ""}`,
      });
      const writePointer = firstWrite ? pointerTo(firstWrite) : undefined;

      const problem = oac?.end();
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
      if (anyOf) {
        const tests = anyOf.map((pattern) => compilePathPattern(pattern, index.cwd));
        const matches = (forms: PathForms) => tests.some((test) => test(forms));
        const auto = autoLoaded.find((file) => matches(file.forms));
        const read = anyOfRead;
        if (auto) evidence.add(() => autoEvidence(auto));
        else if (read)
          evidence.add(() => ({
            type: "context-loaded",
            description: `${read.path} read (one of ${anyOf.join(", ")})`,
            pointer: read.pointer,
          }));
        else
          violate("missing-context-file", "error", `none of ${anyOf.join(", ")} was read`, writePointer, {
            expected: anyOf,
          });
        return {
          score: auto || read ? 1 : 0,
          metadata: { mode: "any-of", expected: anyOf, filesRead: filesReadCount },
        };
      }
      if (expectedEach) {
        let loaded = 0;
        expectedEach.forEach((expected, i) => {
          const matches = compilePathPattern(expected, index.cwd);
          const auto = autoLoaded.find((file) => matches(file.forms));
          if (auto) {
            loaded++;
            evidence.add(() => autoEvidence(auto));
            return;
          }
          const first = firstReadOf[i];
          if (first?.onTime) {
            loaded++;
            evidence.add(() => ({
              type: "context-loaded",
              description: `${expected} read (${first.path}) before the first write`,
              pointer: first.pointer,
            }));
          } else if (first && firstWrite) {
            violate(
              "context-loaded-late",
              "error",
              `${expected} was read only after the first write (${describeCall(firstWrite)})`,
              first.pointer,
              { expected, read_at: first.pointer.event_index, first_write_at: firstWrite.index },
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
        });
        return {
          score: fraction(loaded, expectedEach.length),
          metadata: { mode: "explicit", expected: expectedEach, filesRead: filesReadCount },
        };
      }

      contextReadsFirst.addTo(evidence, (read) => ({
        type: "context-loaded",
        description: `read ${read.path}`,
        pointer: read.pointer,
      }));
      for (const file of autoLoaded) evidence.add(() => autoEvidence(file));
      skillsFirst.addTo(evidence, (skill) => ({ type: "context-loaded", ...skill }));
      const ok = !firstWrite || contextReadsFirst.length + skillsFirst.length + autoLoaded.length > 0;
      if (!ok && firstWrite && !options.taskTypes) {
        violations.push(
          violation(
            CONTEXT_LOADING,
            "no-context-loaded",
            severityFor(options, "no-context-loaded", options.required ? "error" : "warning"),
            `No context file (${patterns.slice(0, 4).join(", ")}, ...) was read before the first write (${describeCall(firstWrite)})`,
            writePointer,
            { late: contextFilesRead },
          ),
        );
      }
      return {
        score: ok ? 1 : 0,
        metadata: {
          mode: "auto",
          contextFilesRead,
          contextFilesLoaded: autoLoaded.map((file) => file.file_path),
          firstWriteIndex: firstWrite?.index,
        },
      };
    };

    return { ...(oac ? { event: (event: RunEvent) => oac.event?.(event) } : {}), call: visitCall, end };
  },
});

/** contextLoading as a function: `contextLoadingRule.check`. */
export const contextLoading = contextLoadingRule.check;

/** A call that changes something: a file write, or a Bash command that is not read-only. */
export function isWriteAction(call: ToolCallView, index: Pick<RunSoFar, "kindOf">): boolean {
  return isFileWriteTool(call.name) || (call.name === "Bash" && index.kindOf(call) === "execute");
}

const BASH_READERS = new Set(["cat", "head", "tail", "less", "more", "bat", "nl"]);

/**
 * Whether a command line may run one of BASH_READERS. Without quotes or backslashes every word of it is
 * a piece of its text, so a program it runs is too: most commands need no parse.
 */
function mayNameReader(command: string): boolean {
  return /cat|head|tail|less|more|bat|nl|['"\\]/.test(command);
}

/**
 * The files a call read (when it succeeded or its outcome is unknown): Read's file_path, and the files
 * of `cat`/`head`/`tail`/`less`/`more` in a Bash command.
 */
export function filesRead(call: ToolCallView): readonly string[] {
  // The rules visiting a call ask about it in turn (context-loading, read-before-write).
  if (call !== lastCall) {
    lastCall = call;
    lastFiles = filesReadBy(call);
  }
  return lastFiles;
}

/** The last call filesRead was asked about, and its answer. */
let lastCall: ToolCallView | undefined;
let lastFiles: readonly string[] = [];

const NO_FILES: readonly string[] = [];

function filesReadBy(call: ToolCallView): readonly string[] {
  if (call.status === "error" || call.status === "denied") return NO_FILES;
  if (call.name === "Read" || call.name === "NotebookRead") {
    const path = filePathOf(call);
    return path ? [path] : NO_FILES;
  }
  const command = bashCommand(call);
  if (command === undefined || !mayNameReader(command)) return NO_FILES;
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
