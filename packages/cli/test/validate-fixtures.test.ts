import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { evalsCommand, runInProcess } from "./command-io.js";

/**
 * `evals validate` and `evals run` share one fixture check: every fixture `run` refuses as bad input
 * (exit 2, before any agent starts) is a problem for `validate` (exit 1, with file, line and field),
 * and a fixture validate passes is one run copies.
 */

const scratch = mkdtempSync(join(tmpdir(), "harness-validate-fixtures-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A suite folder (deep enough for `../../..`), its case file naming `fixture` on line 4. */
function suite(name: string, fixture: string, more: string[] = []): { dir: string; caseFile: string } {
  const dir = join(scratch, "a", "b", name);
  mkdirSync(dir, { recursive: true });
  const caseFile = join(dir, "cases.yaml");
  writeFileSync(
    caseFile,
    [`id: ${name}`, "prompt: Look around.", "agent:", `  fixture: ${fixture}`, ...more, ""].join("\n"),
  );
  return { dir, caseFile };
}

const evalsValidate = (file: string) => runInProcess(evalsCommand("validate"), [file]);
const evalsRun = (file: string, dir: string) =>
  runInProcess(evalsCommand("run"), [
    file,
    "--cassettes",
    join(dir, "cassettes"),
    "--mode",
    "strict",
    "--out",
    join(dir, "results"),
  ]);

/** Each bad fixture: how to make it, and what the message says. */
const BAD: { name: string; make: (dir: string) => string; says: string }[] = [
  {
    name: "a-file",
    make: (dir) => {
      writeFileSync(join(dir, "project.txt"), "not a folder\n");
      return "project.txt";
    },
    says: "is not a folder",
  },
  { name: "missing", make: () => "nowhere", says: "does not exist" },
  { name: "above", make: () => "../../..", says: "is outside the case's project" },
  { name: "etc", make: () => "/etc", says: "/etc is outside the case's project" },
  {
    name: "fifo",
    make: (dir) => {
      mkdirSync(join(dir, "fixture"));
      writeFileSync(join(dir, "fixture", "a.txt"), "a\n");
      execFileSync("mkfifo", [join(dir, "fixture", "pipe")]);
      return "fixture";
    },
    says: "pipe is a FIFO",
  },
  {
    name: "dangling",
    make: (dir) => {
      mkdirSync(join(dir, "fixture"));
      symlinkSync("gone.txt", join(dir, "fixture", "link.txt"));
      return "fixture";
    },
    says: "link.txt is a link that points at nothing",
  },
  {
    name: "leaving",
    make: (dir) => {
      mkdirSync(join(dir, "fixture"));
      writeFileSync(join(dir, "secret.txt"), "s\n");
      symlinkSync("../secret.txt", join(dir, "fixture", "link.txt"));
      return "fixture";
    },
    says: "link.txt is a link that leaves the fixture",
  },
  {
    name: "linked-root",
    make: (dir) => {
      symlinkSync("/etc", join(dir, "fixture"));
      return "fixture";
    },
    says: "is outside the case's project",
  },
];

describe("evals validate refuses every fixture evals run refuses", () => {
  for (const bad of BAD) {
    it(`${bad.name}: validate exits 1 with file, line and field; run exits 2 before any agent`, async () => {
      const { dir, caseFile } = suite(bad.name, "PLACEHOLDER");
      writeFileSync(
        caseFile,
        [`id: ${bad.name}`, "prompt: Look around.", "agent:", `  fixture: ${bad.make(dir)}`, ""].join("\n"),
      );
      const checked = await evalsValidate(caseFile);
      expect(checked.code, checked.err).toBe(EXIT.failed);
      expect(checked.err).toContain(`${caseFile}:4:`);
      expect(checked.err).toContain("(field agent.fixture)");
      expect(checked.err).toContain(bad.says);
      const run = await evalsRun(caseFile, dir);
      expect(run.code, run.out + run.err).toBe(EXIT.badInput);
      expect(run.err).toContain(`${caseFile}:4:`);
      expect(run.err).toContain(bad.says);
    });
  }

  it("outside a git checkout, a case's project is its package: ../fixture beside cases/ is inside", async () => {
    const pkg = join(scratch, "package");
    mkdirSync(join(pkg, "cases"), { recursive: true });
    mkdirSync(join(pkg, "fixture"));
    writeFileSync(join(pkg, "package.json"), "{}\n");
    const caseFile = join(pkg, "cases", "cases.yaml");
    writeFileSync(caseFile, "id: in-package\nprompt: Look around.\nagent:\n  fixture: ../fixture\n");
    const checked = await evalsValidate(caseFile);
    expect(checked.err).toBe("");
    expect(checked.code).toBe(EXIT.passed);
  });

  it("agent.fixtureOutsideProject: true allows a fixture outside the project, in validate and run alike", async () => {
    const shared = join(scratch, "shared-fixture");
    mkdirSync(shared, { recursive: true });
    writeFileSync(join(shared, "a.txt"), "a\n");
    const { caseFile } = suite("allowed", shared, ["  fixtureOutsideProject: true"]);
    const checked = await evalsValidate(caseFile);
    expect(checked.err).toBe("");
    expect(checked.code).toBe(EXIT.passed);
    const { caseFile: refused } = suite("not-allowed", shared);
    expect((await evalsValidate(refused)).err).toContain("set agent.fixtureOutsideProject: true to allow it");
  });
});
