import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FIXTURE_TIME } from "../src/fixture.js";
import { copyFixture } from "../src/index.js";

const scratch = mkdtempSync(join(tmpdir(), "worktree-fixture-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("copyFixture", () => {
  const fixture = join(scratch, "fixture");
  mkdirSync(join(fixture, "src", "deep"), { recursive: true });
  mkdirSync(join(fixture, ".claude", "skills"), { recursive: true });
  writeFileSync(join(fixture, "src", "b.js"), "b");
  writeFileSync(join(fixture, "src", "deep", "a.js"), "a");
  writeFileSync(join(fixture, ".claude", "skills", "SKILL.md"), "skill");
  const parent = join(scratch, "copies");
  mkdirSync(parent);

  it("copies every file, hidden folders included, into a new folder each time", () => {
    const first = copyFixture(fixture, { parent });
    const second = copyFixture(fixture, { parent });
    expect(first).not.toBe(second);
    expect(readFileSync(join(first, "src", "deep", "a.js"), "utf8")).toBe("a");
    expect(readFileSync(join(first, ".claude", "skills", "SKILL.md"), "utf8")).toBe("skill");
    writeFileSync(join(first, "src", "b.js"), "changed");
    expect(readFileSync(join(second, "src", "b.js"), "utf8")).toBe("b");
    expect(readFileSync(join(fixture, "src", "b.js"), "utf8")).toBe("b");
  });

  it("gives the files the same times in every copy, one second apart in path order", () => {
    const times = (root: string) =>
      [".claude/skills/SKILL.md", "src/b.js", "src/deep/a.js", "src"].map(
        (path) => statSync(join(root, path)).mtimeMs,
      );
    const first = times(copyFixture(fixture, { parent }));
    expect(times(copyFixture(fixture, { parent }))).toEqual(first);
    for (const time of first) expect(time).toBeGreaterThanOrEqual(FIXTURE_TIME);
    // .claude/skills/SKILL.md < src/b.js < src/deep/a.js in path order.
    expect(first[0]).toBeLessThan(first[1]!);
    expect(first[1]).toBeLessThan(first[2]!);
  });

  it("copies into a given folder (a trial's worktree), its files stamped the same way", () => {
    const target = join(scratch, "worktree");
    mkdirSync(target);
    writeFileSync(join(target, "README.md"), "repo");
    expect(copyFixture(fixture, { target })).toBe(target);
    expect(readdirSync(target).sort()).toEqual([".claude", "README.md", "src"]);
    expect(statSync(join(target, "src", "b.js")).mtimeMs).toBeGreaterThanOrEqual(FIXTURE_TIME);
  });

  it("gives an empty folder without a fixture, and says which fixture is missing", () => {
    const empty = copyFixture(undefined, { parent });
    expect(readdirSync(empty)).toEqual([]);
    expect(() => copyFixture(join(scratch, "nope"), { parent })).toThrow(/fixture .*nope is not a folder/);
  });
});
