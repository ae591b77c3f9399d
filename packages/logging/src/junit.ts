import { hostname } from "node:os";
import type { CaseResult } from "./case-result.js";
import { describeScore, describeViolation, failureSummary, violationLabel } from "./case-summary.js";
import { caseOrigin } from "./origin.js";
import type { ResultsFile } from "./results-file.js";
import { tally } from "./results-file.js";

/**
 * JUnit XML in the common (Ant / Jenkins) shape CI systems read: <testsuites> with one <testsuite>
 * per eval suite, one <testcase> per case, <failure>, <error> or <skipped> for cases that did not
 * pass, the scores and violations in <system-out>, the run's meta as suite <properties>.
 */
export function renderJunit(results: ResultsFile): string {
  const bySuite = new Map<string, CaseResult[]>();
  for (const c of results.cases) {
    const suite = c.suite ?? results.meta.suite;
    const list = bySuite.get(suite) ?? [];
    list.push(c);
    bySuite.set(suite, list);
  }
  const timestamp = junitTimestamp(results.meta.started_at);
  const host = hostname();
  const all = tally(results.cases);
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites${attrs({
      name: results.meta.suite,
      tests: all.total,
      failures: all.failed,
      errors: all.errored,
      skipped: all.skipped,
      time: seconds(results.summary.duration_ms),
      timestamp,
    })}>`,
  ];
  let id = 0;
  for (const [suite, cases] of bySuite) {
    const counts = tally(cases);
    lines.push(
      `  <testsuite${attrs({
        name: suite,
        tests: counts.total,
        failures: counts.failed,
        errors: counts.errored,
        skipped: counts.skipped,
        time: seconds(cases.reduce((sum, c) => sum + c.duration_ms, 0)),
        timestamp,
        hostname: host,
        id: id++,
        package: "evals",
      })}>`,
    );
    lines.push("    <properties>");
    for (const [name, value] of Object.entries({
      git_commit: results.meta.git_commit,
      git_branch: results.meta.git_branch,
      claude_version: results.meta.claude_version,
      model: results.meta.model,
      recorded_model: results.meta.recorded_model,
      origin: suiteOrigin(cases),
      node_version: results.meta.node_version,
    })) {
      if (value !== undefined) lines.push(`      <property${attrs({ name, value })}/>`);
    }
    lines.push("    </properties>");
    for (const c of cases) lines.push(...testcase(c, suite));
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}

function testcase(c: CaseResult, suite: string): string[] {
  const open = `    <testcase${attrs({
    name: c.name,
    classname: suite,
    time: seconds(c.duration_ms),
    ...(c.file ? { file: c.file } : {}),
  })}>`;
  const out: string[] = [open];
  const summary = failureSummary(c);
  if (c.status === "failed") {
    out.push(
      `      <failure${attrs({ message: summary, type: "EvalFailure" })}>${text(details(c))}</failure>`,
    );
  } else if (c.status === "error") {
    out.push(`      <error${attrs({ message: summary, type: "EvalError" })}>${text(details(c))}</error>`);
  } else if (c.status === "skipped") {
    out.push(`      <skipped${c.error ? attrs({ message: c.error }) : ""}/>`);
  }
  out.push(`      <system-out>${text(report(c))}</system-out>`);
  out.push("    </testcase>");
  return out;
}

/** The failure's body: why, every scorer, every violation. */
function details(c: CaseResult): string {
  return [c.error, report(c)].filter(Boolean).join("\n\n");
}

function report(c: CaseResult): string {
  const lines = [`case ${c.id}${c.tags.length > 0 ? ` [${c.tags.join(", ")}]` : ""}`];
  if (c.stats && c.stats.trials > 1) {
    lines.push(
      `trials: ${c.stats.passed}/${c.stats.trials} passed (pass rate ${pct(c.stats.pass_rate)}, 95% CI ${pct(c.stats.ci_low)}-${pct(c.stats.ci_high)})`,
    );
  }
  for (const score of c.scores) lines.push(`score ${describeScore(score)}`);
  for (const violation of c.violations) {
    const where =
      violation.trial !== undefined && c.trials.length > 1 ? ` (trial ${violation.trial + 1})` : "";
    lines.push(`${violationLabel(violation)}: ${describeViolation(violation)}${where}`);
  }
  if (c.cost_usd !== undefined) lines.push(`cost: $${c.cost_usd.toFixed(4)}`);
  const origin = caseOrigin(c);
  if (origin) lines.push(`origin: ${origin}`);
  const recorded = c.trials.filter((trial) => trial.recorded_cost_usd !== undefined);
  if (recorded.length > 0) {
    const total = recorded.reduce((sum, trial) => sum + (trial.recorded_cost_usd ?? 0), 0);
    lines.push(`recorded cost: $${total.toFixed(4)} (what the recording cost; not spent in this run)`);
  }
  return lines.join("\n");
}

/** "replayed" when the suite's cases were replayed (see caseOrigin), else undefined. */
function suiteOrigin(cases: CaseResult[]): string | undefined {
  const origins = [...new Set(cases.map(caseOrigin).filter((o) => o !== undefined))];
  return origins.length > 0 ? origins.join(", ") : undefined;
}

function pct(value: number): string {
  return `${Math.round(value * 100)}%`;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** ISO 8601 without zone or fraction, as the JUnit XSD's timestamp wants (the time is UTC). */
function junitTimestamp(iso: string): string {
  const date = new Date(iso);
  return (Number.isNaN(date.getTime()) ? new Date() : date).toISOString().slice(0, 19);
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${escapeXml(String(value), true)}"`)
    .join("");
}

function text(value: string): string {
  return escapeXml(value, false);
}

/** Characters XML 1.0 cannot hold at all (control characters, lone surrogates), written as the text "\u0007". */
const INVALID_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function escapeXml(value: string, attribute: boolean): string {
  const escaped = value
    .replace(INVALID_XML, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
  return attribute
    ? escaped.replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;")
    : escaped;
}
