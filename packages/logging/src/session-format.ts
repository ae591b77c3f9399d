import { formatCost, formatDuration, plural, truncate } from "./format.js";
import type { SessionNode, SessionTree } from "./session-tracker.js";
import { type Palette, palette } from "./terminal.js";

export interface FormatTreeOptions {
  color?: boolean;
  /** Longest prompt shown under a subagent (characters); 0 hides prompts. */
  promptWidth?: number;
}

/**
 * The session tree as text:
 *
 *     main · 1 tool call (Agent) · 1.1s · $0.171
 *     └─ general-purpose a03261a2b1bf87fc6 · 1 tool call (Bash) · 378ms
 *        “SUBTASK-MARKER: please run echo from-child and report”
 */
export function formatSessionTree(tree: SessionTree, options: FormatTreeOptions = {}): string {
  const paint = palette(options.color ?? false);
  const promptWidth = options.promptWidth ?? 80;
  const lines: string[] = [];
  const visit = (node: SessionNode, prefix: string, childPrefix: string) => {
    lines.push(`${paint.gray(prefix)}${sessionLine(node, paint)}`);
    if (node.depth > 0 && node.prompt && promptWidth > 0) {
      lines.push(`${paint.gray(childPrefix)}${paint.dim(`“${truncate(node.prompt, promptWidth)}”`)}`);
    }
    node.children.forEach((child, i) => {
      const last = i === node.children.length - 1;
      visit(child, `${childPrefix}${last ? "└─ " : "├─ "}`, `${childPrefix}${last ? "   " : "│  "}`);
    });
  };
  visit(tree.root, "", "");
  lines.push(
    paint.gray(
      `${plural(tree.totalSessions, "session")} · max depth ${tree.maxDepth} · ${plural(tree.delegations.length, "delegation")}`,
    ),
  );
  return `${lines.join("\n")}\n`;
}

/** "general-purpose a03261a2 · 2 tool calls (Bash ×2) · 1 error · 378ms" */
export function sessionLine(node: SessionNode, paint: Palette = palette(false)): string {
  const name = node.depth === 0 ? paint.bold("main") : `${paint.bold(node.type)} ${paint.gray(node.id)}`;
  const parts = [name, toolSummary(node)];
  if (node.toolErrors > 0) parts.push(paint.red(plural(node.toolErrors, "error")));
  if (node.durationMs !== undefined) parts.push(formatDuration(node.durationMs));
  if (node.costUsd !== undefined) parts.push(formatCost(node.costUsd));
  if (node.status === "running") parts.push(paint.yellow("running"));
  return parts.join(paint.gray(" · "));
}

/** "3 tool calls (Bash ×2, Read)" */
export function toolSummary(node: Pick<SessionNode, "toolCalls" | "toolCallsByName">): string {
  if (node.toolCalls === 0) return "no tool calls";
  const names = Object.entries(node.toolCallsByName)
    .sort((a, b) => b[1] - a[1])
    .map(([name, count]) => (count > 1 ? `${name} ×${count}` : name));
  const shown = names.length > 4 ? [...names.slice(0, 4), `+${names.length - 4}`] : names;
  return `${plural(node.toolCalls, "tool call")} (${shown.join(", ")})`;
}
