import { type EventPointer, SOMETIMES_OFFERED_TOOLS, sameTool } from "@evals/core";
import { z } from "zod";
import { defineRule } from "../define-rule.js";
import { pointerTo, RuleOptionsBaseSchema } from "../evaluator.js";
import { fileWrites, parseShell, programOf, type SimpleCommand } from "../shell.js";
import { bashCommand, truncate } from "../tools.js";

export const TOOL_USAGE = "tool-usage";

export const ToolUsageOptionsSchema = RuleOptionsBaseSchema.extend({
  /** Programs never to flag (e.g. ["find"]). */
  allow: z.array(z.string()).optional(),
}).strict();

/** The dedicated call an agent should have made instead of a Bash command. */
export interface ToolSuggestion {
  tool: "Read" | "Glob" | "Grep" | "Edit" | "Write";
  input: Record<string, unknown>;
  /** The Bash program that was used. */
  instead_of: string;
}

/**
 * tool-usage: Bash used where Claude Code has a dedicated tool: cat/head/tail/less on a file -> Read,
 * find -> Glob, grep/rg on files -> Grep, sed -i / awk -i inplace -> Edit (sed/awk that only print ->
 * Read), echo/printf/heredoc redirected into a file -> Write. Each violation carries the suggested
 * call. Commands reading a pipe (`git log | head`) are fine. A tool the agent was not offered (the
 * run's `tools`, from the init line: 2.1.330 offers no Grep or Glob) is never suggested. When the run
 * does not say what was offered (hooks only), Grep and Glob, which a version may not offer, are only
 * suggested as info that does not lower the score. Violations are warnings by default.
 */
export const toolUsageRule = defineRule({
  id: TOOL_USAGE,
  summary:
    "Bash is not used where Claude Code has a dedicated tool it offered (cat -> Read, find -> Glob, grep -> Grep, sed -i -> Edit, echo > file -> Write).",
  options: ToolUsageOptionsSchema,
  visit(options, { index, violate }) {
    const allow = new Set(options.allow ?? []);
    let bashCalls = 0;
    let flagged = 0;
    const notOffered = new Set<string>();
    const unknownOffer = new Set<string>();
    /**
     * Suggestions for calls made before the run said which tools were offered (its init line comes
     * first; a hooks-only run never says): judged, in order, once it does or at the end. Without a
     * tool list every suggestion is reported, so this holds no more than the violations.
     */
    const waiting: CallSuggestions[] = [];

    const judge = (
      { call, command, suggestions }: CallSuggestions,
      offered: readonly string[] | undefined,
    ) => {
      const isOffered = (tool: string) => !offered || offered.some((name) => sameTool(name, tool));
      // Without the init line's tool list, Grep/Glob may not have been there to use.
      const mayNotBeOffered = (tool: string) =>
        !offered && SOMETIMES_OFFERED_TOOLS.some((name) => sameTool(name, tool));
      let flaggedThis = false;
      for (const { words, suggestion } of suggestions) {
        if (!isOffered(suggestion.tool)) {
          notOffered.add(suggestion.tool);
          continue;
        }
        const type = `bash-instead-of-${suggestion.tool.toLowerCase()}`;
        const bash = `Bash ${JSON.stringify(truncate(words, 80))}`;
        const dedicated = `${suggestion.tool} ${JSON.stringify(suggestion.input)}`;
        if (mayNotBeOffered(suggestion.tool)) {
          unknownOffer.add(suggestion.tool);
          violate(
            type,
            "info",
            `${bash} could be ${dedicated} if the agent was offered ${suggestion.tool}: the run does not say which tools were offered (hooks do not tell)`,
            call,
            { command, suggestion },
          );
          continue;
        }
        flaggedThis = true;
        violate(type, "warning", `${bash} should be ${dedicated}`, call, { command, suggestion });
      }
      if (flaggedThis) flagged++;
    };
    const judgeWaiting = () => {
      for (const item of waiting) judge(item, index.meta.tools);
      waiting.length = 0;
    };

    return {
      call(call) {
        const command = bashCommand(call);
        if (command === undefined) return;
        bashCalls++;
        // Most commands have no suggestion: no list is made for them.
        let suggestions: CallSuggestions["suggestions"] | undefined;
        for (const simple of parseShell(command)) {
          const suggestion = suggestTool(simple);
          if (suggestion && !allow.has(suggestion.instead_of)) {
            suggestions ??= [];
            suggestions.push({ words: simple.words.join(" "), suggestion });
          }
        }
        if (suggestions === undefined) return;
        const item = { call: pointerTo(call), command, suggestions };
        if (index.meta.tools === undefined) waiting.push(item);
        else {
          judgeWaiting();
          judge(item, index.meta.tools);
        }
      },
      end() {
        judgeWaiting();
        return {
          score: bashCalls === 0 ? 1 : 1 - flagged / bashCalls,
          metadata: {
            bashCalls,
            flaggedCalls: flagged,
            // Dedicated tools that would have been suggested, had the agent been offered them.
            ...(notOffered.size > 0 ? { notOffered: [...notOffered].sort() } : {}),
            // Tools suggested only as info: the run does not say whether the agent was offered them.
            ...(unknownOffer.size > 0 ? { offerUnknown: [...unknownOffer].sort() } : {}),
          },
        };
      },
    };
  },
});

/** A Bash call's suggested dedicated calls, one per simple command that has one. */
interface CallSuggestions {
  call: EventPointer;
  command: string;
  suggestions: { words: string; suggestion: ToolSuggestion }[];
}

/** toolUsage as a function: `toolUsageRule.check`. */
export const toolUsage = toolUsageRule.check;

/** The programs suggestTool has a dedicated tool for (every other one has none). */
const SUGGESTING = new Set([
  ...["echo", "printf", "tee", "cat", "less", "more", "bat", "head", "tail", "find"],
  ...["grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk"],
]);

/** The dedicated tool for one simple command, when there is one. */
export function suggestTool(simple: SimpleCommand): ToolSuggestion | undefined {
  const { program, args } = programOf(simple);
  if (!SUGGESTING.has(program)) return undefined;
  const writes = fileWrites(simple);
  const operands = args.filter((arg) => !arg.startsWith("-"));

  if ((program === "echo" || program === "printf" || program === "cat") && writes.length > 0) {
    if (program === "cat" && !simple.heredoc && operands.length > 0) return undefined; // cat a > b copies
    return { tool: "Write", input: { file_path: writes[0]?.target }, instead_of: program };
  }
  if (program === "tee" && simple.piped && operands.length > 0) {
    return { tool: "Write", input: { file_path: operands[0] }, instead_of: program };
  }
  if (simple.piped || writes.length > 0) return undefined;

  switch (program) {
    case "cat":
    case "less":
    case "more":
    case "bat":
      if (simple.heredoc || operands.length !== 1) return undefined;
      return { tool: "Read", input: { file_path: operands[0] }, instead_of: program };
    case "head":
    case "tail": {
      const files = fileOperands(args);
      if (files.length !== 1) return undefined;
      const lines = lineCount(args);
      return {
        tool: "Read",
        input: {
          file_path: files[0],
          ...(program === "head" && lines !== undefined ? { limit: lines } : {}),
        },
        instead_of: program,
      };
    }
    case "find": {
      if (args.some((arg) => /^-(delete|exec|execdir|ok)$/.test(arg))) return undefined;
      const nameAt = args.findIndex((arg) => arg === "-name" || arg === "-iname" || arg === "-path");
      const name = nameAt >= 0 ? args[nameAt + 1] : undefined;
      const root = args[0] && !args[0].startsWith("-") ? args[0] : ".";
      return {
        tool: "Glob",
        input: {
          pattern: name ? (args[nameAt] === "-path" ? name : `**/${name}`) : "**/*",
          ...(root !== "." ? { path: root } : {}),
        },
        instead_of: program,
      };
    }
    case "grep":
    case "egrep":
    case "fgrep":
    case "rg":
    case "ag":
    case "ack": {
      const { pattern, paths } = grepOperands(args);
      if (pattern === undefined) return undefined;
      return {
        tool: "Grep",
        input: { pattern, ...(paths[0] !== undefined ? { path: paths[0] } : {}) },
        instead_of: program,
      };
    }
    case "sed":
    case "awk": {
      const inPlace =
        program === "sed"
          ? args.some((arg) => /^-[a-zA-Z]*i/.test(arg) || arg.startsWith("--in-place"))
          : args.includes("inplace");
      const file = operands[operands.length - 1];
      if (operands.length < 2 || file === undefined) return undefined;
      return inPlace
        ? { tool: "Edit", input: { file_path: file }, instead_of: program }
        : { tool: "Read", input: { file_path: file }, instead_of: program };
    }
    default:
      return undefined;
  }
}

function fileOperands(args: string[]): string[] {
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (/^-[nc]$/.test(arg)) i++;
    else if (!arg.startsWith("-") && !/^\+?\d+$/.test(arg)) files.push(arg);
  }
  return files;
}

function lineCount(args: string[]): number | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const inline = /^-n?(\d+)$/.exec(arg) ?? /^--lines=(\d+)$/.exec(arg);
    if (inline) return Number(inline[1]);
    if (arg === "-n" && /^\d+$/.test(args[i + 1] ?? "")) return Number(args[i + 1]);
  }
  return undefined;
}

const GREP_OPTIONS_WITH_VALUE = new Set([
  "-e",
  "-f",
  "-A",
  "-B",
  "-C",
  "-m",
  "--include",
  "--exclude",
  "-g",
  "-t",
]);

function grepOperands(args: string[]): { pattern: string | undefined; paths: string[] } {
  let pattern: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "-e") {
      pattern ??= args[i + 1];
      i++;
    } else if (GREP_OPTIONS_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith("-")) rest.push(arg);
  }
  if (pattern === undefined) pattern = rest.shift();
  return { pattern, paths: rest };
}
