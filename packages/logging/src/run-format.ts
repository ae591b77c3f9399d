import { canonicalToolName, type ResultSubtype } from "@evals/core";
import { plural } from "./format.js";

/** Formatters of a run's parts: what a tool call does, what it returned, why a run ended. */

/** The few words that say what a tool call does: Bash's command, Read's path, Agent's type and task. */
export function describeToolInput(name: string, input: Record<string, unknown>): string {
  const str = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : undefined);
  // `Task` and `Agent` are one tool: described by its canonical name.
  switch (canonicalToolName(name)) {
    case "Bash":
      return str("command") ?? "";
    case "Read":
    case "Write":
    case "Edit":
    case "MultiEdit":
      return str("file_path") ?? "";
    case "NotebookEdit":
      return str("notebook_path") ?? "";
    case "Grep":
      return [str("pattern"), str("path") ?? str("glob")].filter(Boolean).join("  in ");
    case "Glob":
      return [str("pattern"), str("path")].filter(Boolean).join("  in ");
    case "LS":
      return str("path") ?? "";
    case "WebFetch":
      return str("url") ?? "";
    case "WebSearch":
      return str("query") ?? "";
    case "Agent":
      return [str("subagent_type") ?? "general-purpose", str("description") ?? str("prompt")]
        .filter(Boolean)
        .join(": ");
    case "Skill":
      return str("skill") ?? str("command") ?? "";
    case "TodoWrite":
      return Array.isArray(input.todos) ? plural(input.todos.length, "todo") : "";
    default: {
      for (const value of Object.values(input)) if (typeof value === "string" && value.trim()) return value;
      const json = JSON.stringify(input);
      return json === "{}" ? "" : json;
    }
  }
}

/**
 * Why a run ended with an error, in a few words: its subtype ("error_max_turns"), or, when Claude
 * Code says "success" on an error result (an API error), its terminal reason ("prompt_too_long",
 * "api_error"); undefined when neither says more than "success".
 */
export function errorEnding(final: {
  subtype: string;
  terminal_reason?: string | undefined;
}): string | undefined {
  if (final.subtype !== ("success" satisfies ResultSubtype)) return final.subtype;
  return final.terminal_reason && final.terminal_reason !== "completed" ? final.terminal_reason : undefined;
}

/** The text of a tool result's output (a string, content blocks, or JSON). */
export function outputText(output: unknown): string {
  if (output === undefined || output === null) return "";
  if (typeof output === "string") return output;
  if (Array.isArray(output)) {
    const texts = output.map((block) =>
      block && typeof block === "object" && "text" in block && typeof block.text === "string"
        ? block.text
        : JSON.stringify(block),
    );
    return texts.join("\n");
  }
  return JSON.stringify(output, null, 2);
}
