import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { readResults } from "../src/index.js";
import { stripAnsi } from "../src/terminal.js";

const project = fileURLToPath(new URL("./__fixtures__/reporter-project/", import.meta.url));
const vitestBin = join(createRequire(import.meta.url).resolve("vitest/package.json"), "..", "vitest.mjs");
const outputs: string[] = [];

afterAll(() => {
  for (const dir of outputs) rmSync(dir, { recursive: true, force: true });
});

/** Runs vitest on the fixture project, as a user would, with our reporter by name. */
function runVitest(
  reporters: "with-default" | "alone",
  more: { args?: string[]; env?: Record<string, string> } = {},
): Promise<{ stdout: string; code: number; out: string }> {
  const out = mkdtempSync(join(tmpdir(), "evals-reporter-"));
  outputs.push(out);
  // A comparison an earlier run left: not this run's, so not in its report.
  const earlier = join(out, "variants", "earlier");
  mkdirSync(earlier, { recursive: true });
  writeFileSync(
    join(earlier, "comparison.json"),
    readFileSync(join(project, "..", "compare", "earlier-comparison.json")),
  );
  utimesSync(join(earlier, "comparison.json"), new Date("2026-01-01"), new Date("2026-01-01"));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        vitestBin,
        "run",
        "--root",
        project,
        "--config",
        join(project, "vitest.config.mjs"),
        ...(more.args ?? []),
      ],
      {
        cwd: project,
        timeout: 90_000,
        env: {
          ...process.env,
          EVALS_OUT: out,
          EVALS_REPORTERS: reporters,
          FORCE_COLOR: "0",
          NO_COLOR: "1",
          CI: "",
          EVALS_SHARD: "",
          ...more.env,
        },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ stdout: stripAnsi(stdout + stderr), code, out });
      },
    );
  });
}

describe("EvalReporter in a real vitest run", () => {
  const withDefault = runVitest("with-default");

  it("prints the suite's table of cases, scores and verdicts", async () => {
    const { stdout, code } = await withDefault;
    expect(code).toBe(1); // two eval cases failed
    const table = stdout.slice(stdout.indexOf("checkout skill · "));
    const lines = table.split("\n");
    expect(lines[0]).toMatch(
      /^checkout skill · 1 of 3 cases passed \(33\.3%\) · 3\.1s · ≈\$0\.171 \(estimated\)$/,
    );
    expect(lines[1]).toMatch(
      /^ {2}result {2}case +trials {2}trajectory {2}approval-gate {2}violations {2}time +est\. cost$/,
    );
    expect(lines[2]).toMatch(/^ {2}✓ pass {2}delegates the echo +1\/1 +1\.00 +– +– +1\.1s +\$0\.171$/);
    expect(lines[3]).toMatch(/^ {2}✗ fail {2}asks before paying +0\/1 +– +0\.00 ✗ +1 error +2\.0s +–$/);
    expect(lines[4]).toContain("→ approval-gate/missing-approval: Bash pay.sh ran without approval");
    expect(lines[5]).toMatch(/^ {2}✗ fail {2}scores well but then throws/);
    expect(lines[6]).toContain("→ the workspace could not be cleaned up");
  });

  it("shows a violation the case expected as expected, not as an error beside 'pass'", async () => {
    const { stdout } = await withDefault;
    const table = stdout.slice(stdout.indexOf("refund skill · "));
    const lines = table.split("\n");
    expect(lines[0]).toMatch(/^refund skill · 1 of 1 case passed \(100%\) · 1\.8s$/);
    expect(lines[1]).toMatch(
      /^ {2}result {2}case +trials {2}stop-on-failure {2}violations {2}time +est\. cost$/,
    );
    expect(lines[2]).toMatch(/^ {2}✓ pass {2}presses on, as expected +1\/1 +1\.00 +1 expected +1\.8s +– *$/);
    expect(lines[2]).not.toContain("error");
    // A passing case gets no reason line.
    expect(lines[3] ?? "").not.toContain("→");
  });

  it("warns about metadata that is not a valid case result, naming the field", async () => {
    const { stdout } = await withDefault;
    expect(stdout).toContain(
      'evals: ignoring the eval metadata of "checkout skill > carries broken metadata" (field evalCase.tags)',
    );
  });

  it("leaves per-case lines to vitest's default reporter when it is there", async () => {
    const { stdout } = await withDefault;
    expect(stdout).not.toContain("✓ PASS  delegates the echo");
  });

  it("writes latest.json, the history file, junit.xml and report.html", async () => {
    const { stdout, out } = await withDefault;
    const results = readResults(join(out, "latest.json"));
    expect(results.meta.suite).toBe("checkout evals");
    expect(results.cases.map((c) => [c.id, c.status, c.suite, c.file])).toEqual([
      ["delegates", "passed", "checkout skill", "checkout.eval-fixture.ts"],
      ["asks-first", "failed", "checkout skill", "checkout.eval-fixture.ts"],
      ["throws-late", "failed", "checkout skill", "checkout.eval-fixture.ts"],
      ["presses-on", "passed", "refund skill", "checkout.eval-fixture.ts"],
    ]);
    // The expected violation is kept as expected and counted apart, not as an error.
    expect(results.cases[3]!.violations.map((v) => [v.severity, v.expected])).toEqual([["error", true]]);
    expect(results.summary.violations).toEqual({ error: 1, warning: 0, info: 0, expected: 1 });
    expect(results.cases[2]!.error).toBe("the workspace could not be cleaned up");
    // The runs of the failed case are kept; the passing case's run is not.
    expect(results.cases[0]!.trials[0]!.run).toBeUndefined();
    expect(results.cases[1]!.trials[0]!.run?.events.length).toBeGreaterThan(5);
    const month = readdirSync(join(out, "history"));
    expect(month).toHaveLength(1);
    expect(readdirSync(join(out, "history", month[0]!))[0]).toMatch(/^\d\d-\d{6}-checkout-evals\.json$/);
    expect(readFileSync(join(out, "junit.xml"), "utf8")).toContain(
      '<testsuite name="checkout skill" tests="3" failures="2"',
    );
    expect(existsSync(join(out, "report.html"))).toBe(true);
    // The with/without comparison a suite wrote during this run is in the report; an earlier one is not.
    const report = readFileSync(join(out, "report.html"), "utf8");
    expect(report).toContain("<h2>Comparison: with against without</h2>");
    expect(report).not.toContain("Comparison: earlier-b against earlier-a");
    expect(stdout).toMatch(/report +.*report\.html {2}\(open it in a browser\)/);
  });

  it("prints per-case lines itself when it is the only reporter", async () => {
    const { stdout } = await runVitest("alone");
    expect(stdout).toContain("  ▸ general-purpose started “Run child echo” · delegates the echo");
    expect(stdout).toContain("  ✓ general-purpose finished in 378ms · 1 tool call · delegates the echo");
    expect(stdout).toMatch(/\[1\/6\] ✓ PASS {2}delegates the echo 1\.1s · \$0\.171 {2}trajectory 1\.00/);
    expect(stdout).toContain("✗ FAIL  asks before paying");
    expect(stdout).toMatch(/Evals 2 passed · 2 failed \(50% of 4 cases in/);
  });

  it("under EVALS_SHARD writes a shard's results: every run kept, the shard and each case's place", async () => {
    const { out } = await runVitest("with-default", { env: { EVALS_SHARD: "1/1" } });
    // In a folder of its own, so shards sharing a results folder never overwrite each other.
    const dir = join(out, "shard-1-of-1");
    const results = readResults(join(dir, "latest.json"));
    expect(results.meta.shard).toEqual({ index: 1, count: 1, positions: [0, 1, 2, 5] });
    expect(results.meta.runs_included).toBe("all");
    expect(results.cases[0]!.trials[0]!.run).toBeDefined();
    const month = readdirSync(join(dir, "history"))[0]!;
    expect(readdirSync(join(dir, "history", month))[0]).toMatch(/-checkout-evals-shard-1-of-1\.json$/);
  });

  it("says that vitest's --shard splits files, not cases, and writes no shard's results", async () => {
    const { stdout, out } = await runVitest("with-default", { args: ["--shard=1/1"] });
    expect(stdout).toContain("evals: vitest --shard=1/1 splits the test files, not their cases");
    expect(stdout).toContain("EVALS_SHARD=1/1");
    expect(readResults(join(out, "latest.json")).meta.shard).toBeUndefined();
  });
});
