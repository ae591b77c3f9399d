import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  anyOfToAllOf,
  evaluate,
  loadCase,
  loadCaseDir,
  MIGRATE_EXIT,
  type MigrationReport,
  migrateCommand,
} from "../src/index.js";
import { fixtureRun } from "./helpers.js";

/** OpenAgentsControl's real case files (v0.5.5), copied from shared/oac-cases (see its README). */
const oacDir = fileURLToPath(new URL("./__fixtures__/oac-cases/", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "evals-migrate-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

class Capture {
  text = "";
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
}

async function migrate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await migrateCommand(args, { stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("evals migrate (OpenAgentsControl cases)", () => {
  const out = join(scratch, "cases");
  let report: MigrationReport;
  const fileReport = (suffix: string) => {
    const found = report.files.find((file) => file.file.endsWith(suffix));
    if (!found) throw new Error(`no report for ${suffix}`);
    return found;
  };

  it("converts the 145 active cases of the real tree, skips 8 templates and 93 archived copies, and says why 3 cannot be converted", async () => {
    const result = await migrate([oacDir, "--out", out, "--json"]);
    expect(result.stderr).toBe("");
    report = JSON.parse(result.stdout) as MigrationReport;
    expect(report.totals).toEqual({
      files: 249,
      converted: 145,
      convertedWithLosses: 88,
      skipped: 101,
      failed: 3,
      fields: { converted: 1639, changed: 300, dropped: 91, unconverted: 112 },
    });
    // Some files could not be converted: exit 1.
    expect(result.code).toBe(MIGRATE_EXIT.incomplete);
    expect(report.files.filter((file) => file.status === "failed").map((file) => file.file)).toEqual([
      "evals/agents/meta/repo-manager/tests/context-loading-test.yaml",
      "evals/agents/meta/repo-manager/tests/delegation-test.yaml",
      "evals/agents/meta/repo-manager/tests/smoke-test.yaml",
    ]);
    expect(fileReport("repo-manager/tests/smoke-test.yaml").reason).toMatch(/another format .*test_cases/);
    const skipped = report.files.filter((file) => file.status === "skipped");
    expect(skipped.filter((file) => /template/.test(file.reason ?? ""))).toHaveLength(8);
    expect(skipped.filter((file) => file.file.includes("/_archive/"))).toHaveLength(93);
    expect(fileReport("_archive/01-critical-rules/context-loading/02-docs-task.yaml").reason).toMatch(
      /byte-identical to evals\/agents\/core\/openagent\/tests\/01-critical-rules\/context-loading\//,
    );
  });

  it("writes cases that all load with this package's loader, with unique ids", () => {
    const written = filesUnder(out);
    expect(written).toHaveLength(145);
    // Written atomically: no temporary file is left behind.
    expect(written.filter((file) => file.endsWith(".tmp"))).toEqual([]);
    const warnings: string[] = [];
    const cases = loadCaseDir(out, { onWarning: (warning) => warnings.push(warning.message) });
    expect(cases).toHaveLength(145);
    expect(new Set(cases.map((evalCase) => evalCase.id)).size).toBe(145);
    // Tool names are the canonical ones: nothing the loader would warn about.
    expect(warnings).toEqual([]);
  });

  it("reports duplicate ids and gives each case its agent folder as a prefix, never merging them", () => {
    expect(report.duplicateIds).toEqual([
      {
        id: "smoke-test",
        files: expect.arrayContaining(["evals/agents/core/opencoder/tests/smoke-test.yaml"]),
      },
      {
        id: "contextscout-multi-domain",
        files: [
          "evals/agents/subagents/core/contextscout/tests/04-multi-domain-comprehensive.yaml",
          "evals/agents/subagents/core/contextscout/tests/10-multi-domain-comprehensive.yaml",
        ],
      },
    ]);
    expect(report.duplicateIds[0]?.files).toHaveLength(5);
    const opencoder = fileReport("core/opencoder/tests/smoke-test.yaml");
    expect(opencoder.id).toBe("core/opencoder/smoke-test");
    expect(opencoder.fields[0]).toMatchObject({ field: "id", status: "changed" });
    expect(loadCase(join(out, opencoder.out as string)).id).toBe("core/opencoder/smoke-test");
  });

  it("converts behavior.forbiddenTools, which OAC stripped and never enforced, to mustNotUseTools and says so", () => {
    const forbidden = report.files.filter((file) =>
      file.fields.some((field) => field.field === "behavior.forbiddenTools"),
    );
    expect(forbidden).toHaveLength(12);
    for (const file of forbidden) {
      const field = file.fields.find((item) => item.field === "behavior.forbiddenTools");
      expect(field).toMatchObject({ status: "changed", note: expect.stringMatching(/never enforced/) });
      expect(field?.line).toBeGreaterThan(1);
    }
    const migrated = loadCase(join(out, forbidden[0]?.out as string));
    expect(migrated.behavior?.mustNotUseTools).toEqual(expect.arrayContaining(["Agent"]));
  });

  it("keeps the meaning of tools, approval, timeouts and severities, and reports the rest per field", () => {
    const smoke = loadCase(join(out, "evals/agents/shared/tests/golden/00-smoke-test.yaml"));
    expect(smoke.agent.permissionMode).toBe("bypassPermissions");
    // auto-approve answered OpenCode's prompts; OAC's approval-gate still wanted the agent to ask.
    expect(smoke.rules["approval-gate"]).toEqual({ permissionMode: "default" });
    const negative = loadCase(
      join(out, "evals/agents/core/openagent/tests/06-negative/report-first-violation.yaml"),
    );
    expect(negative.expectedViolations).toEqual([
      {
        rule: "report-first",
        shouldViolate: true,
        severity: "error",
        description: "Agent must report issues before fixing despite user instruction to skip reporting",
      },
    ]);
    expect(negative.rules["report-first"]).toBe(true);
    // OAC's per-prompt timeout becomes the run's: 5 prompts of 180 s.
    const multi = report.files.find((file) =>
      file.fields.some((field) => /× 5 prompts/.test(field.note ?? "")),
    );
    expect(multi).toBeDefined();
    // maxToolCalls and shouldDelegate were warnings in OAC: still warnings.
    const delegate = loadCase(join(out, "evals/agents/shared/tests/golden/02-delegation-test.yaml"));
    expect(delegate.behavior?.severity).toMatchObject({ "too-many-tool-calls": "warning" });
    // The content case OAC's loader rejects is converted, and the report says OAC rejected it.
    const content = fileReport("07-content-creation-uses-contextscout.yaml");
    expect(content.status).toBe("converted");
    expect(content.fields.find((field) => field.field === "category")?.note).toMatch(/OAC's loader rejects/);
    // What cannot be converted is reported, with its line.
    const lossy = fileReport("core/openagent/tests/delegation/contextscout-delegation.yaml");
    expect(lossy.fields).toContainEqual(
      expect.objectContaining({ field: "assertions", status: "unconverted", line: expect.any(Number) }),
    );
    const golden = fileReport("golden/02-delegation-test.yaml");
    expect(
      golden.fields.filter((field) => field.status === "unconverted").map((field) => field.field),
    ).toEqual(["behavior.expectedAgent", "behavior.expectedModel"]);
  });

  it("converts OAC's mustUseAnyOf (one set fully used) into groups that must each be used, the same condition", () => {
    expect(anyOfToAllOf([["read"], ["glob", "read"], ["list", "read"]])).toEqual([["Read"]]);
    expect(
      anyOfToAllOf([
        ["glob", "read"],
        ["list", "read"],
      ]),
    ).toEqual([["Read"], ["Glob", "LS"]]);
    expect(anyOfToAllOf([["bash"], ["write", "edit"]])).toEqual([
      ["Bash", "Edit"],
      ["Bash", "Write"],
    ]);
    expect(anyOfToAllOf([["frobnicate"]])).toMatch(/unknown tool "frobnicate"/);
  });

  it("judges migrated cases on real runs: OAC's golden error-handling case and its report-first cases", async () => {
    const golden = loadCase(join(out, "evals/agents/shared/tests/golden/08-error-handling.yaml"));
    expect(golden.behavior?.mustUseTools).toEqual(["Read"]);
    // The real run read a missing file and said so.
    const missing = await evaluate(fixtureRun("missing-file"), golden);
    expect(missing.reasons).toEqual([]);
    expect(
      (await evaluate(fixtureRun("missing-file"), { ...golden, rules: { "error-handling": true } })).passed,
    ).toBe(true);
    const verdictOf = (result: { verdicts: { evaluator: string; passed: boolean }[] }) =>
      result.verdicts.find((verdict) => verdict.evaluator === "report-first")?.passed;
    const negative = loadCase(
      join(out, "evals/agents/core/openagent/tests/06-negative/report-first-violation.yaml"),
    );
    const positive = loadCase(
      join(
        out,
        "evals/agents/core/openagent/tests/01-critical-rules/report-first/01-correct-workflow-positive.yaml",
      ),
    );
    // The run that edited at once: the negative case sees the violation it expects, the positive one fails.
    expect(verdictOf(await evaluate(fixtureRun("fix-without-report"), negative))).toBe(true);
    expect(verdictOf(await evaluate(fixtureRun("fix-without-report"), positive))).toBe(false);
    // The run that reported, proposed, asked and fixed after "yes": the other way round.
    expect(verdictOf(await evaluate(fixtureRun("report-first"), positive))).toBe(true);
    expect(verdictOf(await evaluate(fixtureRun("report-first"), negative))).toBe(false);
  });

  it("honours an expected violation's severity, which OAC ignored", async () => {
    const golden = loadCase(join(out, "evals/agents/shared/tests/golden/02-delegation-test.yaml"));
    const forbidden = golden.expectedViolations.find((expected) => expected.rule === "context-loading");
    expect(forbidden).toMatchObject({ shouldViolate: false, severity: "warning" });
    // The real multi-tool run wrote with no context read first: a context-loading warning.
    const verdictOf = async (severity: "warning" | "error") =>
      (
        await evaluate(fixtureRun("multi-tool"), {
          ...golden,
          expectedViolations: [{ rule: "context-loading", shouldViolate: false, severity }],
        })
      ).verdicts.find((verdict) => verdict.evaluator === "context-loading");
    const asWarning = await verdictOf("warning");
    expect(asWarning?.passed).toBe(false);
    expect(asWarning?.reasons[0]).toMatch(
      /^no context-loading violation with severity warning was expected, but one occurred/,
    );
    // Forbidding only errors, the warning is allowed.
    expect((await verdictOf("error"))?.passed).toBe(true);
  });

  it("never overwrites a case file without --force, and reports each one it left", async () => {
    const target = join(out, "evals/agents/shared/tests/golden/00-smoke-test.yaml");
    writeFileSync(target, "# edited by hand\n");
    const again = await migrate([oacDir, "--out", out]);
    expect(again.code).toBe(MIGRATE_EXIT.incomplete);
    expect(readFileSync(target, "utf8")).toBe("# edited by hand\n");
    expect(again.stdout).toMatch(/^evals migrate: 249 files: 0 converted/);
    expect(again.stdout).toContain(
      "evals/agents/shared/tests/golden/00-smoke-test.yaml: NOT CONVERTED: evals/agents/shared/tests/golden/00-smoke-test.yaml exists in --out; not overwritten (--force overwrites)",
    );
    const forced = await migrate([oacDir, "--out", out, "--force"]);
    expect(forced.code).toBe(MIGRATE_EXIT.incomplete);
    expect(forced.stdout).toMatch(
      /^evals migrate: 249 files: 145 converted \(88 with fields not converted\)/,
    );
    expect(forced.stdout).toMatch(
      /\(field behavior\.expectedAgent\): not converted: no agent\/model check here/,
    );
    expect(readFileSync(target, "utf8")).toMatch(/^# Migrated from OpenAgentsControl/);
  });

  it("converts the _archive/ copies on request, reporting the ids they share", async () => {
    const result = await migrate([
      oacDir,
      "--out",
      join(scratch, "with-archive"),
      "--json",
      "--include-archive",
    ]);
    const withArchive = JSON.parse(result.stdout) as MigrationReport;
    expect(withArchive.totals).toMatchObject({ converted: 238, skipped: 8, failed: 3 });
    expect(withArchive.duplicateIds.length).toBeGreaterThan(40);
    expect(loadCaseDir(join(scratch, "with-archive"), { onWarning: () => {} })).toHaveLength(238);
  });

  it("exits 2 on bad arguments", async () => {
    expect((await migrate([oacDir])).code).toBe(MIGRATE_EXIT.usage);
    expect((await migrate(["--out", out])).stderr).toMatch(/which folder/);
    expect((await migrate([join(scratch, "nope"), "--out", out])).stderr).toMatch(/is not a folder/);
    expect((await migrate([oacDir, "--out", join(oacDir, "x")])).stderr).toMatch(/must not be inside/);
    expect((await migrate([oacDir, "--out", out, "--bogus"])).stderr).toMatch(/Unknown option '--bogus'/);
    expect((await migrate(["--help"])).stdout).toMatch(/^Usage: evals migrate/);
  });
});
