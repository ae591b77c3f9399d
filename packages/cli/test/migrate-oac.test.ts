import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { evaluate, loadCase, loadCaseDir } from "@evals/evaluators";
import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { afterAll, describe, expect, it } from "vitest";
import { evals } from "../src/evals.js";
import { EXIT } from "../src/exit-codes.js";
import { anyOfToAllOf, type MigrationReport } from "../src/oac/migrate-oac.js";
import { runInProcess } from "./command-io.js";

/** OpenAgentsControl's real case files (v0.5.5), copied from shared/oac-cases (see its README). */
const oacDir = fileURLToPath(new URL("./__fixtures__/oac-cases/", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "evals-migrate-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function migrate(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, out, err } = await runInProcess(evals, ["migrate", ...args]);
  return { code, stdout: out, stderr: err };
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
      convertedWithLosses: 17,
      skipped: 101,
      failed: 3,
      fields: { converted: 1520, changed: 325, dropped: 278, unconverted: 28 },
    });
    // Some files could not be converted: exit 1.
    expect(result.code).toBe(EXIT.failed);
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

  it("targets the OpenCode agent OAC ran, with its approval mode, and keeps OAC's verdict rules", () => {
    const smoke = loadCase(join(out, "evals/agents/shared/tests/golden/00-smoke-test.yaml"));
    // test-executor.ts ran OpenCode's "OpenAgent"; auto-approve answered every permission ask: --auto.
    expect(smoke.agent).toMatchObject({
      cli: "opencode",
      options: { agentName: "OpenAgent", autoApprove: true },
    });
    expect(smoke.agent.options?.permissionMode).toBeUndefined();
    // OAC's context-loading evaluator ran its task-type check on every case.
    expect(smoke.rules["context-loading"]).toEqual({ taskTypes: true });
    expect(smoke.rules["execution-balance"]).toEqual({
      minReadRatio: 1,
      bashIsExecution: true,
      severity: { "execution-before-read": "error" },
    });
    // OAC had no read-before-write or forbidden-commands evaluator.
    expect(smoke.rules).toMatchObject({ "read-before-write": false, "forbidden-commands": false });
    // OpenCode's bash output has no exit code: OAC's failure patterns tell a failed command.
    expect((smoke.rules["stop-on-failure"] as { failurePatterns: string[] }).failurePatterns).toContain(
      "/\\d+ failed/i",
    );
    // OAC's behavior evaluator judged the prompted session: the main agent.
    expect(smoke.behavior?.agent).toBe("main");
    const opencoder = loadCase(join(out, "evals/agents/core/opencoder/tests/smoke-test.yaml"));
    expect(opencoder.agent.options?.agentName).toBe("OpenCoder");
    const scout = fileReport("subagents/core/contextscout/tests/02-domain-specific-discovery.yaml");
    expect(scout.fields.find((field) => field.field === "agent")).toMatchObject({
      status: "converted",
      note: expect.stringMatching(/no entry for "subagents\/core\/contextscout" and ran OpenAgent/),
    });
    const negative = loadCase(
      join(out, "evals/agents/core/openagent/tests/06-negative/report-first-violation.yaml"),
    );
    // OAC's verdict ignored severity: none is written, so a violation of any severity counts.
    expect(negative.expectedViolations).toEqual([
      {
        rule: "report-first",
        shouldViolate: true,
        description: "Agent must report issues before fixing despite user instruction to skip reporting",
      },
    ]);
    expect(
      fileReport("06-negative/report-first-violation.yaml").fields.find(
        (field) => field.field === "expectedViolations.0.severity",
      ),
    ).toMatchObject({ status: "dropped" });
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
    // No field whose meaning changed is called converted: the matching of expected violations did.
    for (const file of report.files)
      for (const field of file.fields.filter((item) => /^expectedViolations\.\d+\.rule$/.test(item.field)))
        expect(field.status).toBe("changed");
  });

  it("keeps OAC's any-of context files, all-text responses, and leaves out tools opencode run does not offer", () => {
    // task-manager: "the agent read one of these" (test-case-schema.ts), not each of them.
    const tasks = loadCase(
      join(out, "evals/agents/subagents/core/task-manager/tests/02-context-loading.yaml"),
    );
    expect(tasks.behavior?.expectedContextFiles).toEqual({
      anyOf: [
        "**/.opencode/context/core/task-management/navigation.md",
        "**/.opencode/context/core/task-management/standards/task-schema.md",
        "**/.opencode/context/core/task-management/guides/splitting-tasks.md",
        "**/.opencode/context/core/task-management/guides/managing-tasks.md",
      ],
    });
    // expectedResponse: all the agent's text, every turn, as OAC joined it.
    const withResponse = report.files.find((file) =>
      file.fields.some((field) => field.field === "behavior.expectedResponse.contains"),
    );
    expect(loadCase(join(out, withResponse?.out as string)).behavior?.expectedResponse).toMatchObject({
      scope: "all",
      caseSensitive: true,
    });
    // `list` is not among opencode run's tools: required, the case could never pass: reported, left out.
    const discovery = fileReport("context-retriever/tests/02-discovery-test.yaml");
    expect(discovery.fields.find((field) => field.field === "behavior.mustUseTools.0")).toMatchObject({
      status: "unconverted",
      note: expect.stringMatching(/opencode run does not offer the agent "list"/),
    });
    expect(loadCase(join(out, discovery.out as string)).behavior?.mustUseTools ?? []).not.toContain("LS");
    // In a mustUseAnyOf, the sets naming `list` are left out and the report says so.
    const anyOf = report.files
      .flatMap((file) => file.fields)
      .filter(
        (field) => field.field === "behavior.mustUseAnyOf" && /left out the set/.test(field.note ?? ""),
      );
    expect(anyOf.length).toBeGreaterThan(0);
    for (const field of anyOf) expect(field.status).toBe("changed");
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

  it("counts an expected violation of any severity, as OAC did", async () => {
    const golden = loadCase(join(out, "evals/agents/shared/tests/golden/02-delegation-test.yaml"));
    const forbidden = golden.expectedViolations.find((expected) => expected.rule === "context-loading");
    expect(forbidden).toEqual({
      rule: "context-loading",
      shouldViolate: false,
      description: "Should load delegation context",
    });
    // The real multi-tool run wrote with no context read first: with the default context-loading
    // check (not OAC's, where it is an error) a warning, which would fail the OAC case all the same
    // (result-validator.ts matches by rule, whatever the severity).
    const verdictOf = async (severity?: "warning" | "error" | "any") =>
      (
        await evaluate(fixtureRun("multi-tool"), {
          ...golden,
          rules: { ...golden.rules, "context-loading": {} },
          expectedViolations: [
            { rule: "context-loading", shouldViolate: false, ...(severity ? { severity } : {}) },
          ],
        })
      ).verdicts.find((verdict) => verdict.evaluator === "context-loading");
    const migrated = await verdictOf();
    expect(migrated?.passed).toBe(false);
    expect(migrated?.reasons[0]).toMatch(/^no context-loading violation was expected, but one occurred/);
    expect((await verdictOf("any"))?.passed).toBe(false);
    // Forbidding only errors, the warning is allowed.
    expect((await verdictOf("error"))?.passed).toBe(true);
  });

  it("writes nothing when a case file is in the way without --force, and everything with it", async () => {
    const target = join(out, "evals/agents/shared/tests/golden/00-smoke-test.yaml");
    const other = join(out, "evals/agents/shared/tests/golden/03-read-before-write.yaml");
    writeFileSync(target, "# edited by hand\n");
    rmSync(other);
    const again = await migrate([oacDir, "--out", out]);
    expect(again.code).toBe(EXIT.failed);
    expect(readFileSync(target, "utf8")).toBe("# edited by hand\n");
    // All or nothing: the missing file was not written either.
    expect(existsSync(other)).toBe(false);
    expect(again.stderr).toMatch(/nothing written: 144 case files already in .*--force overwrites them/);
    expect(again.stdout).toContain(
      "evals/agents/shared/tests/golden/00-smoke-test.yaml: NOT CONVERTED: evals/agents/shared/tests/golden/00-smoke-test.yaml exists in --out; not overwritten (--force overwrites)",
    );
    const forced = await migrate([oacDir, "--out", out, "--force"]);
    expect(forced.code).toBe(EXIT.failed);
    expect(forced.stdout).toMatch(
      /^evals migrate: 249 files: 145 converted \(17 with fields not converted\)/,
    );
    expect(forced.stdout).toMatch(
      /\(field behavior\.expectedAgent\): not converted: no agent\/model check here/,
    );
    expect(readFileSync(target, "utf8")).toMatch(/^# Migrated from OpenAgentsControl/);
    expect(existsSync(other)).toBe(true);
    // No staging folder is left beside --out.
    expect(readdirSync(scratch).filter((name) => name.includes("evals-migrate"))).toEqual([]);
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
    expect((await migrate([oacDir])).code).toBe(EXIT.badInput);
    expect((await migrate(["--out", out])).stderr).toMatch(/which folder/);
    expect((await migrate([join(scratch, "nope"), "--out", out])).stderr).toMatch(/is not a folder/);
    expect((await migrate([oacDir, "--out", join(oacDir, "x")])).stderr).toMatch(/must not be inside/);
    expect((await migrate([oacDir, "--out", out, "--bogus"])).stderr).toContain(
      "unknown option --bogus (evals migrate --help lists the options)",
    );
    expect((await migrate(["--help"])).stdout).toMatch(/^Usage: evals migrate/);
  });
});

describe("evals migrate on odd folders: a skip or bad input (exit 2), never an internal error", () => {
  const smoke = readFileSync(join(oacDir, "evals/agents/shared/tests/golden/00-smoke-test.yaml"), "utf8");
  /** A folder with the golden smoke case under evals/agents/shared/tests/ and `more` files. */
  function tree(more: (dir: string) => void = () => {}): string {
    const dir = mkdtempSync(join(scratch, "tree-"));
    mkdirSync(join(dir, "evals/agents/shared/tests"), { recursive: true });
    writeFileSync(join(dir, "evals/agents/shared/tests/smoke.yaml"), smoke);
    more(dir);
    return dir;
  }
  const freshOut = () => join(mkdtempSync(join(scratch, "out-")), "cases");

  it("skips a symbolic-link loop and a link that leads nowhere, with the reason, and converts the rest", async () => {
    const dir = tree((root) => {
      symlinkSync("..", join(root, "evals/agents/shared/tests/loop"));
      symlinkSync("missing.yaml", join(root, "evals/agents/shared/tests/dangling.yaml"));
    });
    const result = await migrate([dir, "--out", freshOut(), "--json"]);
    expect(result.code).toBe(EXIT.passed);
    const report = JSON.parse(result.stdout) as MigrationReport;
    expect(report.files.map(({ file, status, reason }) => ({ file, status, reason }))).toEqual([
      {
        file: "evals/agents/shared/tests/dangling.yaml",
        status: "skipped",
        reason: "a symbolic link that leads nowhere (ENOENT: -> missing.yaml)",
      },
      {
        file: "evals/agents/shared/tests/loop",
        status: "skipped",
        reason: "a symbolic link to a folder (-> ..): not followed, as it may loop",
      },
      { file: "evals/agents/shared/tests/smoke.yaml", status: "converted", reason: undefined },
    ]);
  });

  it("skips YAML that is not a case (workflows, configs) and exits 0 when every case converted", async () => {
    const dir = tree((root) => {
      mkdirSync(join(root, ".github/workflows"), { recursive: true });
      writeFileSync(join(root, ".github/workflows/ci.yml"), "name: ci\non: [push]\njobs: {}\n");
      writeFileSync(join(root, "config.yaml"), "- a\n- b\n");
    });
    const result = await migrate([dir, "--out", freshOut()]);
    expect(result.code).toBe(EXIT.passed);
    expect(result.stdout).toMatch(
      /^evals migrate: 3 files: 1 converted \(1 with fields not converted\), 2 skipped, 0 not converted/,
    );
    expect(result.stdout).toContain(
      ".github/workflows/ci.yml: skipped: not an OAC case (none of id, prompt,",
    );
  });

  it("converts a case whose prompt mentions /users/{user-id}: a placeholder in text is not a template", async () => {
    const dir = tree((root) =>
      writeFileSync(
        join(root, "evals/agents/shared/tests/route.yaml"),
        [
          "id: route-case",
          "name: Route",
          "description: A route with a path parameter",
          "category: developer",
          "prompts:",
          '  - text: "Add GET /users/{user-id} to the API"',
          "approvalStrategy:",
          "  type: auto-approve",
          "behavior:",
          "  mustUseTools: [write]",
          "",
        ].join("\n"),
      ),
    );
    const out = freshOut();
    const result = await migrate([dir, "--out", out, "--json"]);
    const report = JSON.parse(result.stdout) as MigrationReport;
    expect(report.files.find((file) => file.file.endsWith("route.yaml"))?.status).toBe("converted");
    expect(loadCase(join(out, "evals/agents/shared/tests/route.yaml")).prompts).toEqual([
      "Add GET /users/{user-id} to the API",
    ]);
  });

  it("exits 2 when --out names a file, or the folder holds no case", async () => {
    const file = join(scratch, "a-file");
    writeFileSync(file, "x");
    const onFile = await migrate([tree(), "--out", file]);
    expect(onFile.code).toBe(EXIT.badInput);
    expect(onFile.stderr).toMatch(/--out .*a-file is file, not a folder/);
    const empty = mkdtempSync(join(scratch, "empty-"));
    const none = await migrate([empty, "--out", freshOut()]);
    expect(none.code).toBe(EXIT.badInput);
    expect(none.stderr).toMatch(/no OpenAgentsControl case under .*\(0 YAML files, 0 skipped\)/);
  });

  it("writes nothing, and prints the report, when a case file's place is taken or --out lies under a file", async () => {
    const dir = tree((root) => {
      for (const name of ["a", "b", "c"])
        writeFileSync(
          join(root, `evals/agents/shared/tests/${name}.yaml`),
          smoke.replace(/^id: .*$/m, `id: case-${name}`),
        );
    });
    const out = freshOut();
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "keep.txt"), "mine\n");
    // The second case's place is a folder: even --force cannot write it, so none is written.
    mkdirSync(join(out, "evals/agents/shared/tests/b.yaml/x"), { recursive: true });
    const result = await migrate([dir, "--out", out, "--force"]);
    expect(result.code).toBe(EXIT.failed);
    expect(result.stderr).toMatch(/nothing written: 1 case file already in/);
    // --out under a file: bad input, nothing written.
    const blocked = join(scratch, "blocked-parent");
    writeFileSync(blocked, "x");
    const failed = await migrate([dir, "--out", join(blocked, "cases")]);
    expect(failed.code).toBe(EXIT.badInput);
    expect(failed.stderr).toMatch(/--out .* is under a file, not a folder/);
    expect(readdirSync(join(out, "evals/agents/shared/tests"))).toEqual(["b.yaml"]);
    expect(readFileSync(join(out, "keep.txt"), "utf8")).toBe("mine\n");
  });
});
