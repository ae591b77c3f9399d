import { isDelegationTool, type Run, type RunEvent } from "@evals/core";
import type { CaseResult } from "./case-result.js";
import { describeScore, failureSummary, violationLabel } from "./case-summary.js";
import { formatCost, formatDuration, formatPercent, plural, truncate } from "./format.js";
import { caseOrigin } from "./origin.js";
import { describeToolInput, errorEnding, outputText } from "./run-format.js";
import { type SessionChange, type SessionNode, SessionTracker } from "./session-tracker.js";
import {
  type OutputStream,
  type Palette,
  palette,
  shouldUseColor,
  stripAnsi,
  visibleLength,
} from "./terminal.js";

/**
 * normal: a line when a subagent starts and when it finishes, and a verdict line per case.
 * verbose: the whole hierarchy, each session boxed and indented by depth, with its tool calls,
 * results and delegations.
 */
export type LogMode = "normal" | "verbose";

export interface LiveLoggerOptions {
  /** Where to write (process.stdout by default). */
  stream?: OutputStream;
  /** Defaults to "verbose" when EVALS_VERBOSE or EVALS_DEBUG is set (not "0"), else "normal". */
  mode?: LogMode;
  /** Colors; defaults to the terminal's ability, honouring NO_COLOR and FORCE_COLOR. */
  color?: boolean;
  /**
   * A redrawn status line (cases done of total, elapsed, estimate) at the bottom. Defaults to on for
   * a terminal; without it (CI logs, files) verdict lines carry a [done/total] counter instead.
   */
  progress?: boolean;
  /** Time source (epoch ms), also used to time events that carry no timestamp. */
  clock?: () => number;
  env?: NodeJS.ProcessEnv;
  /** Widest line drawn (boxes, status); defaults to the terminal's width, at most 100. */
  width?: number;
}

/** Which mode the environment asks for: EVALS_VERBOSE=1 or EVALS_DEBUG=1 mean verbose. */
export function logModeFromEnv(env: NodeJS.ProcessEnv = process.env): LogMode {
  const on = (value: string | undefined) =>
    value !== undefined && value !== "" && value !== "0" && value !== "false";
  return on(env.EVALS_VERBOSE) || on(env.EVALS_DEBUG) ? "verbose" : "normal";
}

interface CaseState {
  name: string;
  tracker: SessionTracker;
  mainBoxDrawn: boolean;
}

/**
 * The console side of an eval run, fed as it happens: `start(total)`, then per case `caseStarted`,
 * `event` for each run event (or `replayRun` for a finished run), `caseFinished`; then `finish()`.
 */
export class LiveLogger {
  readonly mode: LogMode;
  private readonly stream: OutputStream;
  private readonly paint: Palette;
  private readonly progress: boolean;
  private readonly clock: () => number;
  private readonly width: number;
  private readonly cases = new Map<string, CaseState>();
  private total: number | undefined;
  private done = 0;
  private startedAt: number;
  private statusShown = false;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: LiveLoggerOptions = {}) {
    const env = options.env ?? process.env;
    this.stream = options.stream ?? process.stdout;
    this.mode = options.mode ?? logModeFromEnv(env);
    this.paint = palette(options.color ?? shouldUseColor(this.stream, env));
    this.progress = options.progress ?? this.stream.isTTY === true;
    this.clock = options.clock ?? Date.now;
    this.width = Math.max(40, Math.min(options.width ?? this.stream.columns ?? 100, 100));
    this.startedAt = this.clock();
  }

  /** Starts the run: `total` cases expected (for the progress line and its estimate). */
  start(total?: number): void {
    this.total = total;
    this.done = 0;
    this.startedAt = this.clock();
    if (this.progress && !this.timer) {
      this.timer = setInterval(() => this.drawStatus(), 1000);
      this.timer.unref?.();
    }
    this.drawStatus();
  }

  /** Raises the expected total (suites collected late). */
  expect(total: number): void {
    this.total = total;
    this.drawStatus();
  }

  caseStarted(caseId: string, name: string = caseId): void {
    this.stateOf(caseId, name);
    this.drawStatus();
  }

  /** One event of a case's run, live. Events without a timestamp are timed by the clock. */
  event(caseId: string, event: RunEvent): void {
    const state = this.stateOf(caseId);
    this.print(this.linesFor(state, state.tracker.add(event), event));
  }

  /** A finished run, all at once (timed by its own timestamps only). */
  replayRun(caseId: string, run: Pick<Run, "events" | "agents">, name?: string): void {
    // Its own state: a replayed run is finished, so it never counts as running.
    const state: CaseState = {
      name: name ?? this.cases.get(caseId)?.name ?? caseId,
      tracker: new SessionTracker({ agents: run.agents }),
      mainBoxDrawn: false,
    };
    const lines: string[] = [];
    for (const event of run.events) lines.push(...this.linesFor(state, state.tracker.add(event), event));
    this.print(lines);
  }

  /** The case's verdict line; in verbose mode also its scores and violations. */
  caseFinished(result: CaseResult): void {
    this.cases.delete(result.id);
    this.done++;
    const p = this.paint;
    const badge = {
      passed: p.green("✓ PASS "),
      failed: p.red("✗ FAIL "),
      error: p.red("! ERROR"),
      skipped: p.yellow("- SKIP "),
    }[result.status];
    const counter = !this.progress && this.total ? p.gray(`[${this.done}/${this.total}] `) : "";
    const facts = [formatDuration(result.duration_ms)];
    if (result.cost_usd !== undefined) facts.push(formatCost(result.cost_usd));
    const origin = caseOrigin(result);
    if (origin) facts.push(origin);
    if (result.stats && result.stats.trials > 1) {
      facts.push(`${result.stats.passed}/${result.stats.trials} trials`);
    }
    let line = `${counter}${badge} ${p.bold(result.name)} ${p.gray(facts.join(" · "))}`;
    if (result.status === "passed" && result.scores.length > 0) {
      line += p.gray(`  ${result.scores.map((s) => `${s.scorer} ${s.score.toFixed(2)}`).join(" · ")}`);
    }
    const lines = [line];
    const why = failureSummary(result);
    if (why) lines.push(`    ${p.red("→")} ${truncate(why, this.width - 6)}`);
    if (this.mode === "verbose") {
      for (const score of result.scores) {
        lines.push(`    ${score.passed ? p.green("✓") : p.red("✗")} ${describeScore(score)}`);
      }
      for (const violation of result.violations) {
        const color = violation.expected
          ? p.gray
          : violation.severity === "error"
            ? p.red
            : violation.severity === "warning"
              ? p.yellow
              : p.gray;
        lines.push(
          `    ${color(violationLabel(violation))} ${violation.rule}/${violation.type}: ${truncate(violation.message, this.width - 20)}`,
        );
      }
    }
    this.print(lines);
  }

  /** Ends the run: stops the status line and prints the totals. */
  finish(summary?: {
    total: number;
    passed: number;
    failed: number;
    errored?: number;
    skipped?: number;
  }): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clearStatus();
    if (!summary) return;
    const p = this.paint;
    const ran = summary.total - (summary.skipped ?? 0);
    const rate = ran > 0 ? summary.passed / ran : 0;
    const parts = [
      p.green(`${summary.passed} passed`),
      summary.failed > 0 ? p.red(`${summary.failed} failed`) : `${summary.failed} failed`,
    ];
    if (summary.errored) parts.push(p.red(`${summary.errored} errored`));
    if (summary.skipped) parts.push(p.yellow(`${summary.skipped} skipped`));
    this.stream.write(
      `${p.bold("Evals")} ${parts.join(p.gray(" · "))} ${p.gray(`(${formatPercent(rate)} of ${plural(ran, "case")} in ${formatDuration(this.clock() - this.startedAt)})`)}\n`,
    );
  }

  /** Prints text (ending in a newline) above the status line. */
  write(text: string): void {
    this.clearStatus();
    this.stream.write(text);
    this.drawStatus();
  }

  /** Stops the status line's timer without printing anything. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clearStatus();
  }

  private stateOf(caseId: string, name?: string): CaseState {
    let state = this.cases.get(caseId);
    if (!state) {
      state = {
        name: name ?? caseId,
        tracker: new SessionTracker({ clock: this.clock }),
        mainBoxDrawn: false,
      };
      this.cases.set(caseId, state);
    } else if (name) {
      state.name = name;
    }
    return state;
  }

  private linesFor(state: CaseState, changes: SessionChange[], event: RunEvent): string[] {
    return this.mode === "verbose"
      ? this.verboseLines(state, changes, event)
      : this.normalLines(state, changes);
  }

  private normalLines(state: CaseState, changes: SessionChange[]): string[] {
    const p = this.paint;
    const lines: string[] = [];
    for (const change of changes) {
      if (change.kind === "session_start" && change.session.depth > 0) {
        const node = change.session;
        const by = node.parent && node.parent !== "main" ? ` by ${this.tracker(state, node.parent)}` : "";
        const what = node.description ?? node.prompt;
        lines.push(
          `${indent(node.depth)}${p.cyan("▸")} ${p.bold(node.type)} started${by}${what ? p.gray(` “${truncate(what, 50)}”`) : ""} ${p.gray(`· ${state.name}`)}`,
        );
      } else if (change.kind === "session_end" && change.session.depth > 0) {
        const node = change.session;
        const facts = [plural(node.toolCalls, "tool call")];
        if (node.toolErrors > 0) facts.push(p.red(plural(node.toolErrors, "error")));
        lines.push(
          `${indent(node.depth)}${p.green("✓")} ${p.bold(node.type)} finished in ${formatDuration(node.durationMs)} ${p.gray(`· ${facts.join(" · ")} · ${state.name}`)}`,
        );
      }
    }
    return lines;
  }

  private verboseLines(state: CaseState, changes: SessionChange[], event: RunEvent): string[] {
    const p = this.paint;
    const lines: string[] = [];
    if (!state.mainBoxDrawn) {
      state.mainBoxDrawn = true;
      lines.push(...this.box(0, [`${p.magenta("◆ MAIN")} ${p.bold("main")} ${p.gray(`· ${state.name}`)}`]));
    }
    for (const change of changes) {
      switch (change.kind) {
        case "session_start": {
          const node = change.session;
          if (node.depth === 0) break;
          const body = [
            `${p.magenta("◆ CHILD")} ${p.bold(node.type)} ${p.gray(node.id)}`,
            p.gray(`parent ${node.parent ?? "main"} · depth ${node.depth}`),
          ];
          if (node.prompt) body.push(p.gray(`prompt: ${node.prompt}`));
          lines.push(...this.box(node.depth, body));
          break;
        }
        case "session_end": {
          const node = change.session;
          if (node.depth === 0) break;
          const facts = [formatDuration(node.durationMs), plural(node.toolCalls, "tool call")];
          if (node.toolErrors > 0) facts.push(p.red(plural(node.toolErrors, "error")));
          lines.push(
            `${indent(node.depth)}${p.green("✓ CHILD COMPLETE")} ${node.type} ${p.gray(`(${facts.join(", ")})`)}`,
          );
          if (node.lastMessage) {
            lines.push(
              `${indent(node.depth + 1)}${p.gray(`report: ${truncate(node.lastMessage, this.width - 20)}`)}`,
            );
          }
          break;
        }
        case "delegation": {
          const d = change.delegation;
          const what = d.description ?? d.prompt;
          lines.push(
            `${indent(change.session.depth + 1)}${p.cyan("⇢")} delegates to ${p.bold(d.agentType)}${d.background ? p.gray(" (background)") : ""}${what ? p.gray(` “${truncate(what, this.width - 40)}”`) : ""}`,
          );
          break;
        }
        case "tool_call": {
          if (isDelegationTool(change.call.name)) break;
          const summary = describeToolInput(change.call.name, change.call.input);
          lines.push(
            `${indent(change.session.depth + 1)}${p.blue("⚙")} ${p.bold(change.call.name)}  ${truncate(summary, this.width - 16 - change.session.depth * 2)}`,
          );
          break;
        }
        case "tool_result": {
          const r = change.result;
          const took = change.durationMs !== undefined ? ` ${formatDuration(change.durationMs)}` : "";
          const name = change.call?.name ?? "tool";
          const text = r.is_error ? (r.error ?? outputText(r.output)) : outputText(r.output);
          const shown = truncate(text, this.width - 24 - change.session.depth * 2);
          lines.push(
            r.is_error
              ? `${indent(change.session.depth + 2)}${p.red(`✗ ${name} failed${took}`)} ${shown}`
              : `${indent(change.session.depth + 2)}${p.gray(`← ${name} ok${took}${shown ? ` ${shown}` : ""}`)}`,
          );
          break;
        }
        case "tool_denied":
          lines.push(
            `${indent(change.session.depth + 2)}${p.yellow(`⊘ ${change.toolName} denied`)}${change.message ? p.gray(` ${truncate(change.message, this.width - 30)}`) : ""}`,
          );
          break;
        case "run_end": {
          const node = change.session;
          const facts = [formatDuration(node.durationMs), plural(node.toolCalls, "tool call")];
          if (node.costUsd !== undefined) facts.push(formatCost(node.costUsd));
          const why = errorEnding({
            subtype: change.subtype,
            ...(change.terminalReason ? { terminal_reason: change.terminalReason } : {}),
          });
          lines.push(
            change.isError
              ? `${p.red(`✗ MAIN ENDED WITH AN ERROR${why ? ` (${why})` : ""}`)} ${p.gray(`(${facts.join(", ")})`)}`
              : `${p.green("✓ MAIN COMPLETE")} ${p.gray(`(${facts.join(", ")})`)}`,
          );
          break;
        }
      }
    }
    if (event.type === "assistant_text" && event.text.trim()) {
      const node = state.tracker.session(event.agent);
      lines.push(`${indent((node?.depth ?? 0) + 1)}${p.gray(`… ${truncate(event.text, this.width - 10)}`)}`);
    }
    return lines;
  }

  private tracker(state: CaseState, id: string): string {
    const node: SessionNode | undefined = state.tracker.session(id);
    return node ? node.type : id;
  }

  /** A box at an indent, its lines cut to fit. */
  private box(depth: number, body: string[]): string[] {
    const p = this.paint;
    const pad = indent(depth);
    const inner = Math.max(20, this.width - pad.length - 4);
    const lines = [pad + p.gray(`┌${"─".repeat(inner + 2)}┐`)];
    for (const line of body) {
      const fitted = visibleLength(line) > inner ? truncate(stripAnsi(line), inner) : line;
      lines.push(
        `${pad}${p.gray("│")} ${fitted}${" ".repeat(Math.max(0, inner - visibleLength(fitted)))} ${p.gray("│")}`,
      );
    }
    lines.push(pad + p.gray(`└${"─".repeat(inner + 2)}┘`));
    return lines;
  }

  private print(lines: string[]): void {
    if (lines.length === 0) return;
    this.clearStatus();
    this.stream.write(`${lines.join("\n")}\n`);
    this.drawStatus();
  }

  private statusText(): string {
    const p = this.paint;
    const elapsed = this.clock() - this.startedAt;
    const parts = [`${this.done}${this.total ? `/${this.total}` : ""} cases`];
    if (this.total) parts.push(formatPercent(Math.min(1, this.done / this.total)));
    parts.push(`${formatDuration(elapsed)} elapsed`);
    if (this.total && this.done > 0 && this.done < this.total) {
      parts.push(`~${formatDuration((elapsed / this.done) * (this.total - this.done))} left`);
    }
    if (this.cases.size > 0) parts.push(`${this.cases.size} running`);
    return `${p.cyan("▸")} ${parts.join(p.gray(" · "))}`;
  }

  private drawStatus(): void {
    if (!this.progress || this.total === undefined) return;
    const text = this.statusText();
    this.stream.write(`\r\u001b[2K${visibleLength(text) > this.width ? truncate(text, this.width) : text}`);
    this.statusShown = true;
  }

  private clearStatus(): void {
    if (!this.statusShown) return;
    this.stream.write("\r\u001b[2K");
    this.statusShown = false;
  }
}

function indent(depth: number): string {
  return "  ".repeat(depth);
}

/** A whole run as the log the live logger prints for it (no colors unless asked). */
export function formatRunLog(
  run: Pick<Run, "events" | "agents">,
  options: { mode?: LogMode; color?: boolean; name?: string; width?: number } = {},
): string {
  let text = "";
  const logger = new LiveLogger({
    stream: { write: (chunk: string) => (text += chunk) },
    mode: options.mode ?? "normal",
    color: options.color ?? false,
    progress: false,
    width: options.width ?? 100,
  });
  logger.replayRun("run", run, options.name ?? "run");
  return text;
}
