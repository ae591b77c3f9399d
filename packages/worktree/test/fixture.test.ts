import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FIXTURE_TIME } from "../src/fixture.js";
import {
  checkFixture,
  copyFixture,
  createFixtureCopy,
  isWorktreeError,
  pendingExitCleanups,
} from "../src/index.js";

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
    expect(() => copyFixture(join(scratch, "nope"), { parent })).toThrow(/fixture .*nope does not exist/);
  });
});

describe("copyFixture and links", () => {
  const OLD = new Date(Date.UTC(2020, 5, 1));
  const make = (name: string) => {
    const fixture = join(scratch, name);
    mkdirSync(join(fixture, "docs"), { recursive: true });
    writeFileSync(join(fixture, "notes.txt"), "notes\n");
    utimesSync(join(fixture, "notes.txt"), OLD, OLD);
    return fixture;
  };
  const parent = join(scratch, "link-copies");
  mkdirSync(parent, { recursive: true });

  it("copies relative and absolute links inside as relative links inside the copy, touching no target's time", () => {
    const fixture = make("links-inside");
    symlinkSync("../notes.txt", join(fixture, "docs", "relative.txt"));
    symlinkSync(join(fixture, "notes.txt"), join(fixture, "absolute.txt"));
    symlinkSync("docs", join(fixture, "folder-link"));
    expect(checkFixture(fixture)).toEqual([]);
    const copy = copyFixture(fixture, { parent });
    expect(readlinkSync(join(copy, "docs", "relative.txt"))).toBe("../notes.txt");
    expect(readlinkSync(join(copy, "absolute.txt"))).toBe("notes.txt");
    expect(readlinkSync(join(copy, "folder-link"))).toBe("docs");
    writeFileSync(join(copy, "absolute.txt"), "changed\n");
    expect(readFileSync(join(fixture, "notes.txt"), "utf8")).toBe("notes\n");
    expect(readFileSync(join(copy, "notes.txt"), "utf8")).toBe("changed\n");
    // lutimes: the links' own times are set, their targets' in the fixture are not.
    expect(statSync(join(fixture, "notes.txt")).mtimeMs).toBe(OLD.getTime());
    expect(lstatSync(join(copy, "absolute.txt")).mtimeMs).toBeGreaterThanOrEqual(FIXTURE_TIME);
  });

  it("refuses a link leaving the fixture, a dangling link and a FIFO, naming the fixture and the entry", () => {
    const leaving = make("link-leaving");
    const outside = join(scratch, "outside.txt");
    writeFileSync(outside, "outside\n");
    utimesSync(outside, OLD, OLD);
    symlinkSync(outside, join(leaving, "docs", "out.txt"));
    const dangling = make("link-dangling");
    symlinkSync("gone.txt", join(dangling, "gone-link"));
    const fifo = make("with-fifo");
    execFileSync("mkfifo", [join(fifo, "pipe")]);
    for (const [fixture, entry, says] of [
      [leaving, "docs/out.txt", "is a link that leaves the fixture"],
      [dangling, "gone-link", "is a link that points at nothing"],
      [fifo, "pipe", "is a FIFO"],
    ] as const) {
      expect(checkFixture(fixture).map((problem) => problem.entry)).toEqual([entry]);
      let error: unknown;
      try {
        copyFixture(fixture, { parent });
      } catch (thrown) {
        error = thrown;
      }
      expect(isWorktreeError(error, "INVALID_FIXTURE")).toBe(true);
      expect((error as Error).message).toContain(`the fixture ${fixture}: ${entry} ${says}`);
    }
    expect(statSync(outside).mtimeMs).toBe(OLD.getTime());
  });

  it("removes what a copy that failed half-way wrote: its own folder, or only its entries in a target", () => {
    // a.txt is copied, then the FIFO stops the copy: nothing of it may be left.
    const fixture = make("half-way");
    writeFileSync(join(fixture, "a.txt"), "a\n");
    execFileSync("mkfifo", [join(fixture, "b-pipe")]);
    const own = mkdtempSync(join(scratch, "half-way-parent-"));
    expect(() => copyFixture(fixture, { parent: own })).toThrow(/b-pipe is a FIFO/);
    expect(readdirSync(own)).toEqual([]);
    const target = join(scratch, "half-way-target");
    mkdirSync(join(target, "docs"), { recursive: true });
    writeFileSync(join(target, "README.md"), "repo\n");
    expect(() => copyFixture(fixture, { target })).toThrow(/b-pipe is a FIFO/);
    expect(readdirSync(target).sort()).toEqual(["README.md", "docs"]);
  });

  it("never writes through a link already in the target (a worktree's own)", () => {
    const fixture = make("over-a-link");
    const outside = join(scratch, "worktree-outside.txt");
    writeFileSync(outside, "outside\n");
    const target = join(scratch, "link-target");
    mkdirSync(target);
    symlinkSync(outside, join(target, "notes.txt"));
    copyFixture(fixture, { target });
    expect(readFileSync(outside, "utf8")).toBe("outside\n");
    expect(lstatSync(join(target, "notes.txt")).isFile()).toBe(true);
  });

  it("createFixtureCopy: removed by remove(), its interrupt clean-up forgotten", () => {
    const fixture = make("guarded");
    const before = pendingExitCleanups();
    const copy = createFixtureCopy(fixture, { parent });
    expect(readFileSync(join(copy.path, "notes.txt"), "utf8")).toBe("notes\n");
    expect(pendingExitCleanups()).toBe(before + 1);
    copy.remove();
    expect(existsSync(copy.path)).toBe(false);
    expect(pendingExitCleanups()).toBe(before);
  });
});
