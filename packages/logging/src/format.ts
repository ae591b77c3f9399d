import { canonicalToolName, type ResultSubtype } from "@evals/core";
/** Small formatters shared by the console output, the vitest table and the HTML report. */

/** 850 -> "850ms", 1234 -> "1.2s", 83_000 -> "1m23s", 4_000_000 -> "1h06m". */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "–";
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.round(ms / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${String(minutes).padStart(2, "0")}m`;
  return `${minutes}m${String(seconds).padStart(2, "0")}s`;
}

/** 0.17103 -> "$0.171", 12.5 -> "$12.50", undefined -> "". */
export function formatCost(usd: number | undefined): string {
  if (usd === undefined || !Number.isFinite(usd)) return "";
  if (usd === 0) return "$0";
  if (usd < 0.001) return "<$0.001";
  if (usd < 10) return `$${usd.toFixed(3)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatPercent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}

/** Cuts text to `max` characters on one line, ending with "…" when cut. */
export function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (max <= 1) return line.slice(0, Math.max(0, max));
  const chars = [...line];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : line;
}

/** "1 tool call", "3 tool calls". */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

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
