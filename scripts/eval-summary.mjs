// The summary `npm run eval` ends with: per eval suite (project) its cases, trials, passed and
// failed and where its report is, the failed cases again, and why suites were skipped (a missing
// `claude`), from the files each eval target writes: results/latest.json (@evals/logging's
// reporter) and test-results/eval/vitest.json (vitest's JSON report); then the with/without
// comparisons the suites wrote (results/variants/<suite>/comparison.json).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { existing, readVitestReport } from "./workspace-reports.mjs";

/** The files a project's eval target writes that the summary reads. */
export function evalReportsOf(dir) {
  return {
    vitest: join(dir, "test-results", "eval", "vitest.json"),
    results: join(dir, "results", "latest.json"),
  };
}

/**
 * The with/without comparisons a project's eval suites wrote (describeCases' `variants`):
 * results/variants/<suite>/comparison.json, with each variant's results file beside it.
 */
export function evalComparisonsOf(dir) {
  const folder = join(dir, "results", "variants");
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(folder, entry.name, "comparison.json"))
    .filter((file) => existsSync(file))
    .sort();
}

/** Every eval report file of the projects (to delete before a run). */
export const evalReportFiles = (projects) =>
  existing(
    projects.flatMap((dir) => [
      ...Object.values(evalReportsOf(dir)),
      ...evalComparisonsOf(dir).flatMap((file) => {
        const folder = dirname(file);
        return readdirSync(folder).map((name) => join(folder, name));
      }),
    ]),
  );

/**
 * The cases of a project's baseline variants (describeCases' `mustPass: false`), whose failures fail
 * no run: "<suite> › <variant>\0<case id>", as the case appears in results/latest.json. Read from
 * each variant's results file beside a comparison (its meta.variant says whether it is gated).
 */
function ungatedCasesOf(dir) {
  const keys = new Set();
  for (const comparison of evalComparisonsOf(dir)) {
    const folder = dirname(comparison);
    for (const name of readdirSync(folder)) {
      if (!name.endsWith(".json") || name === "comparison.json") continue;
      const results = JSON.parse(readFileSync(join(folder, name), "utf8"));
      const variant = results.meta?.variant;
      if (variant?.gated !== false) continue;
      for (const c of results.cases ?? []) keys.add(`${c.suite} › ${variant.name}\0${c.id}`);
    }
  }
  return keys;
}

/** "+100% [+21…+100]": a difference B − A with its interval, as the comparison table writes it. */
function signed(rate) {
  const percent = Math.round(rate * 100);
  return `${percent > 0 ? "+" : percent < 0 ? "−" : "±"}${Math.abs(percent)}`;
}

/** One comparison in a line: B − A overall with its interval and verdict, and the cases within noise. */
function comparisonLine(comparison) {
  const { a, b, overall, cases } = comparison;
  const noisy = cases.filter((c) => c.difference.verdict === "within noise").length;
  return (
    `${b.label} − ${a.label}: ${signed(overall.difference.difference)}% ` +
    `[${signed(overall.difference.ci_low)}…${signed(overall.difference.ci_high)}] ${overall.difference.verdict}` +
    ` (${a.label} ${overall.a.passed}/${overall.a.trials}, ${b.label} ${overall.b.passed}/${overall.b.trials} trials` +
    ` over ${plural(cases.length, "case")}${noisy > 0 ? `; ${noisy} within noise on their own` : ""})`
  );
}

/**
 * The CPU time (user + system, ms) of this process's finished children, Nx and everything it ran:
 * fields cutime and cstime of /proc/self/stat, in clock ticks (100 a second on Linux). Undefined
 * where there is no /proc.
 */
export function childrenCpuMs() {
  try {
    // The command name (field 2) may hold spaces: count the fields after its closing parenthesis.
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

const seconds = (ms) =>
  ms >= 60_000
    ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
    : `${(ms / 1000).toFixed(1)} s`;

const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;

/**
 * The summary of the eval suites of `projects` (folders under `root`), and whether anything failed
 * (a failed or errored case, a failed test, or Nx's own failure: `nxStatus` not 0). `timing`
 * ({wallMs, cpuMs}) is printed after the totals: the CPU time beside the wall time.
 */
export function evalSummary({ root, projects, nxStatus = 0, formatComparison, timing }) {
  const show = (file) => relative(root, file);
  const rows = [];
  const failures = [];
  const reports = [];
  const skips = new Map();
  const comparisons = [];
  let unreadable = 0;
  const totals = {
    cases: 0,
    trials: 0,
    passed: 0,
    failed: 0,
    errored: 0,
    notGated: 0,
    skipped: 0,
    skippedTests: 0,
    suites: 0,
  };
  for (const dir of projects) {
    const files = evalReportsOf(dir);
    const name = show(dir);
    let tests;
    let results;
    let ungated;
    try {
      tests = existsSync(files.vitest) ? readVitestReport(files.vitest, root) : undefined;
      results = existsSync(files.results) ? JSON.parse(readFileSync(files.results, "utf8")) : undefined;
      ungated = ungatedCasesOf(dir);
    } catch (error) {
      rows.push(`  ${name.padEnd(34)} unreadable report: ${error.message.split("\n")[0]}`);
      unreadable++;
      continue;
    }
    for (const file of evalComparisonsOf(dir)) {
      try {
        const comparison = JSON.parse(readFileSync(file, "utf8"));
        const table = formatComparison ? `\n${formatComparison(comparison).trimEnd()}` : "";
        comparisons.push(
          `  ${name} ${comparison.b.suite}: ${comparisonLine(comparison)}${table}\n    ${show(join(dirname(file), "comparison.html"))}`,
        );
      } catch (error) {
        comparisons.push(`  ${show(file)}: unreadable comparison: ${error.message.split("\n")[0]}`);
        unreadable++;
      }
    }
    if (!tests && !results) continue;
    totals.suites++;
    const counts = results
      ? { ...results.summary }
      : {
          total: tests.passed + tests.failed,
          passed: tests.passed,
          failed: tests.failed,
          errored: 0,
          skipped: 0,
          trials: 0,
        };
    // A baseline variant's failed cases are counted apart: they fail no run.
    const notGated = (results?.cases ?? []).filter(
      (c) => c.status !== "passed" && c.status !== "skipped" && ungated.has(`${c.suite}\0${c.id}`),
    ).length;
    counts.failed -= Math.min(notGated, counts.failed);
    totals.notGated += notGated;
    totals.cases += counts.total;
    totals.trials += counts.trials;
    totals.passed += counts.passed;
    totals.failed += counts.failed;
    totals.errored += counts.errored;
    totals.skipped += counts.skipped;
    const skippedTests = tests?.skipped ?? 0;
    totals.skippedTests += skippedTests;
    const html = join(dir, "results", "report.html");
    if (results && existsSync(html)) reports.push(show(html));
    if (tests) failures.push(...tests.failures);
    for (const [reason, count] of tests?.skipReasons ?? []) {
      const entry = skips.get(reason) ?? [];
      entry.push(`${name} (${plural(count, "test")})`);
      skips.set(reason, entry);
    }
    const parts = [
      plural(counts.total, "case").padStart(9),
      `${String(counts.passed).padStart(3)} passed`,
      `${String(counts.failed + counts.errored).padStart(3)} failed`,
      results ? plural(counts.trials, "trial").padStart(10) : "".padStart(10),
      ...(notGated > 0 ? [`(${notGated} failed in a baseline, not gated)`] : []),
    ];
    const reasons = [...(tests?.skipReasons?.keys() ?? [])].map((reason) => reason.split("\n")[0]);
    const note =
      skippedTests > 0
        ? `${plural(skippedTests, "test")} skipped${reasons.length > 0 ? `: ${reasons.join("; ")}` : ""}`
        : results && existsSync(html)
          ? show(html)
          : "";
    rows.push(`  ${name.padEnd(34)} ${parts.join("  ")}  ${note}`);
  }
  const failedCount = totals.failed + totals.errored;
  const nxFailed = nxStatus !== 0;
  const lines = [];
  if (failures.length > 0) lines.push("", "Failed eval cases:", ...failures);
  if (skips.size > 0) {
    lines.push("", "Skipped:");
    for (const [reason, where] of skips)
      lines.push(`  ${where.join(", ")}: ${reason.replace(/\n/g, "\n    ")}`);
  }
  lines.push("", "Eval suites:", ...(rows.length > 0 ? rows : ["  (no eval reports found)"]));
  if (comparisons.length > 0) lines.push("", "With/without comparisons:", ...comparisons);
  if (reports.length > 0)
    lines.push("", "Reports (open in a browser):", ...reports.map((file) => `  ${file}`));
  if (nxFailed) lines.push("", `Nx exited with ${nxStatus}: a build or eval target failed (see above).`);
  lines.push(
    "",
    `Evals: ${plural(totals.cases, "case")}, ${plural(totals.trials, "trial")} in ${plural(totals.suites, "suite")}: ` +
      `${totals.passed} passed, ${failedCount} failed` +
      `${totals.errored > 0 ? ` (${totals.errored} errored)` : ""}` +
      `${totals.notGated > 0 ? `, ${totals.notGated} failed in baseline variants (mustPass: false, not gated)` : ""}` +
      `${totals.skippedTests > 0 ? `, ${plural(totals.skippedTests, "test")} skipped` : ""}`,
  );
  if (timing)
    lines.push(
      `Took ${seconds(timing.wallMs)} wall${timing.cpuMs === undefined ? "" : `, ${seconds(timing.cpuMs)} CPU (${(timing.cpuMs / timing.wallMs).toFixed(1)} cores busy on average)`}`,
    );
  return {
    text: lines.join("\n"),
    failed: nxFailed || failedCount > 0 || failures.length > 0 || unreadable > 0,
    totals,
  };
}
