import { describe, expect, it } from "vitest";
import {
  buildSessionTree,
  type CaseResult,
  caseResult,
  formatRunLog,
  formatSessionTree,
  LiveLogger,
  logModeFromEnv,
  shouldUseColor,
} from "../src/index.js";
import { stripAnsi } from "../src/terminal.js";
import { apiErrorRun, fixtureRun } from "./fixtures.js";

/** A stream that keeps what is written. */
function sink(isTTY = false) {
  const stream = { text: "", isTTY, columns: 100, write: (chunk: string) => (stream.text += chunk) };
  return stream;
}

const ESC = "\u001b[";

describe("formatter output on the real subagent run", () => {
  const run = fixtureRun("subagent");

  it("normal mode: one line when the subagent starts and one when it finishes, with its duration", () => {
    expect(formatRunLog(run, { name: "delegates the echo" })).toBe(
      [
        "  ▸ general-purpose started “Run child echo” · delegates the echo",
        "  ✓ general-purpose finished in 378ms · 1 tool call · delegates the echo",
        "",
      ].join("\n"),
    );
  });

  it("verbose mode: sessions boxed and indented by depth, with tool calls, results and the delegation", () => {
    expect(formatRunLog(run, { mode: "verbose", name: "delegates the echo", width: 72 })).toBe(
      [
        "┌──────────────────────────────────────────────────────────────────────┐",
        "│ ◆ MAIN main · delegates the echo                                     │",
        "└──────────────────────────────────────────────────────────────────────┘",
        "  ⇢ delegates to general-purpose “Run child echo”",
        "  ┌────────────────────────────────────────────────────────────────────┐",
        "  │ ◆ CHILD general-purpose a03261a2b1bf87fc6                          │",
        "  │ parent main · depth 1                                              │",
        "  │ prompt: SUBTASK-MARKER: please run echo from-child and report      │",
        "  └────────────────────────────────────────────────────────────────────┘",
        "    ⚙ Bash  echo from-child",
        "      ← Bash ok 180ms from-child",
        "  ✓ CHILD COMPLETE general-purpose (378ms, 1 tool call)",
        '    report: child done: "from-child"',
        "    ← Agent ok 660ms <tools-used-before-summary>Bash</tools-used-bef…",
        '  … parent done; agent said: [{"type":"text","text":" <tools-used…',
        "✓ MAIN COMPLETE (1.1s, 1 tool call, $0.171)",
        "",
      ].join("\n"),
    );
  });

  it("the session tree as text", () => {
    expect(formatSessionTree(buildSessionTree(run))).toBe(
      [
        "main · 1 tool call (Agent) · 1.1s · $0.171",
        "└─ general-purpose a03261a2b1bf87fc6 · 1 tool call (Bash) · 378ms",
        "   “SUBTASK-MARKER: please run echo from-child and report”",
        "2 sessions · max depth 1 · 1 delegation",
        "",
      ].join("\n"),
    );
  });

  it("verbose mode on the multi-tool run shows failures and the denial", () => {
    const text = formatRunLog(fixtureRun("multi-tool"), { mode: "verbose", width: 100 });
    expect(text).toContain("    ✗ Bash failed 66ms PreToolUse:Bash hook error");
    expect(text).toContain("    ✗ Read failed 129ms File does not exist.");
    expect(text).toContain(
      "    ⊘ Write denied Claude requested permissions to write to /home/dev/project/out.txt",
    );
    expect(text).toContain("✓ MAIN COMPLETE (1.8s, 5 tool calls, $0.303)");
  });

  it("says why a run that ended in an API error ended, never 'ENDED success'", () => {
    const text = formatRunLog(apiErrorRun(), { mode: "verbose", width: 100 });
    expect(text).toContain("✗ MAIN ENDED WITH AN ERROR (prompt_too_long)");
    expect(text).not.toContain("success");
  });
});

describe("LiveLogger", () => {
  const passed: CaseResult = caseResult({
    id: "a",
    name: "reads before writing",
    trials: [
      {
        status: "passed",
        scores: [{ scorer: "trajectory", score: 1, passed: true }],
        duration_ms: 1200,
        cost_usd: 0.05,
      },
    ],
  });
  const failed: CaseResult = caseResult({
    id: "b",
    name: "asks before deleting",
    trials: [
      {
        status: "failed",
        scores: [{ scorer: "approval-gate", score: 0, passed: false, threshold: 1 }],
        violations: [
          {
            rule: "approval-gate",
            type: "missing-approval",
            severity: "error",
            message: "rm -rf ran without approval",
          },
        ],
        duration_ms: 3400,
      },
    ],
  });

  it("prints live child lines as events arrive, timed by its clock", () => {
    const out = sink();
    let now = 0;
    const logger = new LiveLogger({
      stream: out,
      mode: "normal",
      color: false,
      progress: false,
      clock: () => now,
    });
    logger.caseStarted("c1", "delegates");
    for (const event of fixtureRun("subagent").events.map((e) => {
      const { timestamp: _t, ...rest } = e;
      return rest;
    })) {
      now += 100;
      logger.event("c1", event);
    }
    expect(out.text).toBe(
      [
        "  ▸ general-purpose started “Run child echo” · delegates",
        "  ✓ general-purpose finished in 400ms · 1 tool call · delegates",
        "",
      ].join("\n"),
    );
  });

  it("prints a verdict line per case with a [done/total] counter when not on a terminal", () => {
    const out = sink(false);
    const logger = new LiveLogger({ stream: out, mode: "normal", color: false, env: {} });
    logger.start(2);
    logger.caseFinished(passed);
    logger.caseFinished(failed);
    logger.finish({ total: 2, passed: 1, failed: 1 });
    const lines = out.text.split("\n");
    expect(lines[0]).toBe("[1/2] ✓ PASS  reads before writing 1.2s · $0.050  trajectory 1.00");
    expect(lines[1]).toBe("[2/2] ✗ FAIL  asks before deleting 3.4s");
    expect(lines[2]).toBe("    → approval-gate/missing-approval: rm -rf ran without approval");
    expect(lines[3]).toMatch(/^Evals 1 passed · 1 failed \(50% of 2 cases in \d+ms\)$/);
    expect(out.text).not.toContain(ESC);
  });

  it("draws a progress line on a terminal: done of total, elapsed and an estimate", () => {
    const out = sink(true);
    let now = 0;
    const logger = new LiveLogger({ stream: out, mode: "normal", color: false, clock: () => now, env: {} });
    logger.start(4);
    now = 10_000;
    logger.caseFinished(passed);
    now = 20_000;
    logger.caseStarted("x", "next one");
    // A replayed (finished) run is not counted as running.
    logger.replayRun("done", fixtureRun("subagent"), "replayed");
    expect(out.text.slice(out.text.lastIndexOf("\r\u001b[2K▸"))).toMatch(/· 1 running$/);
    logger.close();
    const redraws = out.text.split("\r\u001b[2K").filter(Boolean);
    expect(redraws).toContain("▸ 1/4 cases · 25% · 10.0s elapsed · ~30.0s left");
    expect(redraws).toContain("▸ 1/4 cases · 25% · 20.0s elapsed · ~1m00s left · 1 running");
    // The verdict line is printed above the status line, which is cleared first.
    expect(out.text).toContain("\r\u001b[2K✓ PASS  reads before writing");
    // close() clears the status line last.
    expect(out.text.endsWith("\r\u001b[2K")).toBe(true);
  });

  it("verbose mode lists every scorer and violation under the verdict", () => {
    const out = sink();
    new LiveLogger({ stream: out, mode: "verbose", color: false, progress: false }).caseFinished(failed);
    expect(out.text).toContain("    ✗ approval-gate 0.00 < 1.00\n");
    expect(out.text).toContain("    error approval-gate/missing-approval: rm -rf ran without approval\n");
  });

  it("colors only when it should: NO_COLOR wins, FORCE_COLOR forces, terminals get color", () => {
    const tty = sink(true);
    const pipe = sink(false);
    expect(shouldUseColor(tty, {})).toBe(true);
    expect(shouldUseColor(tty, { NO_COLOR: "1" })).toBe(false);
    expect(shouldUseColor(tty, { FORCE_COLOR: "0" })).toBe(false);
    expect(shouldUseColor(pipe, {})).toBe(false);
    expect(shouldUseColor(pipe, { FORCE_COLOR: "1" })).toBe(true);
    expect(shouldUseColor(tty, { TERM: "dumb" })).toBe(false);

    const colored = sink(true);
    new LiveLogger({ stream: colored, env: {}, progress: false }).caseFinished(failed);
    expect(colored.text).toContain(`${ESC}31m✗ FAIL ${ESC}39m`);
    const plain = sink(true);
    new LiveLogger({ stream: plain, env: { NO_COLOR: "1" }, progress: false }).caseFinished(failed);
    expect(plain.text).not.toContain(ESC);
    expect(plain.text).toBe(stripAnsi(colored.text));
  });

  it("takes its mode from EVALS_VERBOSE / EVALS_DEBUG", () => {
    expect(logModeFromEnv({})).toBe("normal");
    expect(logModeFromEnv({ EVALS_VERBOSE: "1" })).toBe("verbose");
    expect(logModeFromEnv({ EVALS_DEBUG: "true" })).toBe("verbose");
    expect(logModeFromEnv({ EVALS_VERBOSE: "0" })).toBe("normal");
  });
});
