import {
  accessSync,
  constants,
  copyFileSync,
  type Dirent,
  lstatSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { registerExitCleanup } from "@evals/core";
import { guardUntilExit } from "@evals/core/process";
import { WorktreeError } from "./errors.js";

/** The time every file of a copied fixture gets (then one second more per file, in path order). */
export const FIXTURE_TIME = Date.UTC(2025, 0, 1);

/** Something in a fixture that cannot be copied, found by checkFixture (and refused by copyFixture). */
export interface FixtureProblem {
  /** The fixture folder, as given. */
  fixture: string;
  /** The entry at fault, relative to the fixture ("" for the fixture itself). */
  entry: string;
  /** What is wrong, naming the fixture and the entry. */
  message: string;
}

/**
 * Every reason `copyFixture` would refuse a fixture: it does not exist or is not a folder; an entry
 * is a FIFO, socket or device; a file cannot be read; a link points outside the fixture or at
 * nothing. Links inside the fixture are fine (copied as relative links inside the copy). Empty
 * when the fixture can be copied.
 */
export function checkFixture(fixture: string): FixtureProblem[] {
  const problems: FixtureProblem[] = [];
  walkFixture(fixture, (entry) => {
    if (entry.kind === "problem") problems.push(entry.problem);
  });
  return problems;
}

/**
 * Copies a case's fixture (the project the agent works in) into `target`, or into a fresh folder
 * of its own under `parent` (default: the system's temp folder), and returns that folder (an empty
 * one when there is no fixture). Every file and folder gets a fixed modification time, one second
 * apart in path order, so tools that sort by time (Grep, Glob, `ls -t`) answer the same in every
 * trial and on every machine: a replayed recording sees the same tool output it was recorded with.
 *
 * Links are copied as links, relative, to the same file of the copy: a trial that writes through
 * one changes its copy, never the fixture. A link that leaves the fixture or points at nothing,
 * a FIFO, socket or device, and a file that cannot be read are refused (a WorktreeError
 * INVALID_FIXTURE naming the fixture and the entry; `checkFixture` lists them all beforehand). Times
 * are set without following links (lutimes), so nothing outside the copy is touched. A copy that
 * fails half-way removes what it wrote.
 */
export function copyFixture(
  fixture: string | undefined,
  options: { parent?: string; target?: string } = {},
): string {
  if (fixture !== undefined) {
    const [problem] = fixtureRootProblems(fixture);
    if (problem) throw fixtureError(problem);
  }
  const own = options.target === undefined;
  const target = options.target ?? mkdtempSync(join(options.parent ?? tmpdir(), "evals-fixture-"));
  const written: string[] = [];
  try {
    if (fixture !== undefined) copyTree(fixture, target, written);
    stampTimes(target);
  } catch (error) {
    // Nothing half-written: the whole folder we made, or each entry we added to the caller's.
    if (own) rmSync(target, { recursive: true, force: true, maxRetries: 3 });
    else for (const path of written.reverse()) rmSync(path, { recursive: true, force: true });
    throw error instanceof WorktreeError ? error : copyError(fixture ?? target, error);
  }
  return target;
}

/** A fixture copy of its own, removed on SIGINT/SIGTERM/SIGHUP and by the watchdog should the process die. */
export interface FixtureCopy {
  /** The copy's folder (an `evals-fixture-*` folder in the temp folder, or under `parent`). */
  path: string;
  /** Removes the copy now, and forgets its guards. */
  remove(): void;
}

/**
 * copyFixture into a fresh folder that is never left behind: until `remove()`, an interrupt
 * (@evals/core's exit clean-up) or the death of the process (its watchdog) deletes it.
 */
export function createFixtureCopy(
  fixture: string | undefined,
  options: { parent?: string } = {},
): FixtureCopy {
  const path = copyFixture(fixture, options);
  const removeNow = () => rmSync(path, { recursive: true, force: true, maxRetries: 3 });
  const unregister = registerExitCleanup(removeNow, "remove");
  const guard = guardUntilExit({ remove: [path] });
  return {
    path,
    remove() {
      removeNow();
      unregister();
      guard.release();
    },
  };
}

type FixtureEntry =
  | { kind: "folder"; path: string; entry: string }
  | { kind: "file"; path: string; entry: string }
  | { kind: "link"; path: string; entry: string; text: string }
  | { kind: "problem"; problem: FixtureProblem };

/** The fixture itself: it must exist and be a folder. */
function fixtureRootProblems(fixture: string): FixtureProblem[] {
  const stat = statSync(fixture, { throwIfNoEntry: false });
  if (!stat) return [{ fixture, entry: "", message: `the fixture ${fixture} does not exist` }];
  if (!stat.isDirectory())
    return [
      {
        fixture,
        entry: "",
        message: `the fixture ${fixture} is not a folder (a fixture is the folder the agent works in)`,
      },
    ];
  return [];
}

/** Calls `visit` with every entry of the fixture, parents before children, classified. */
function walkFixture(fixture: string, visit: (entry: FixtureEntry) => void): void {
  const rootProblems = fixtureRootProblems(fixture);
  if (rootProblems.length > 0) {
    for (const problem of rootProblems) visit({ kind: "problem", problem });
    return;
  }
  const realRoot = realpathSync(fixture);
  const walk = (folder: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      const entry = relative(fixture, folder);
      visit({ kind: "problem", problem: problem(fixture, entry, `cannot be read (${reason(error)})`) });
      return;
    }
    for (const dirent of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(folder, dirent.name);
      const classified = classify(fixture, realRoot, path);
      visit(classified);
      if (classified.kind === "folder") walk(path);
    }
  };
  walk(fixture);
}

function classify(fixture: string, realRoot: string, path: string): FixtureEntry {
  const entry = relative(fixture, path);
  const stat = lstatSync(path);
  if (stat.isDirectory()) return { kind: "folder", path, entry };
  if (stat.isFile()) {
    try {
      accessSync(path, constants.R_OK);
    } catch (error) {
      return { kind: "problem", problem: problem(fixture, entry, `cannot be read (${reason(error)})`) };
    }
    return { kind: "file", path, entry };
  }
  if (stat.isSymbolicLink()) {
    const text = readlinkSync(path);
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      return {
        kind: "problem",
        problem: problem(
          fixture,
          entry,
          `is a link that points at nothing (-> ${text}): remove it or add what it points at`,
        ),
      };
    }
    if (real !== realRoot && !real.startsWith(realRoot + sep)) {
      return {
        kind: "problem",
        problem: problem(
          fixture,
          entry,
          `is a link that leaves the fixture (-> ${text}, which is ${real}): a trial could change what it points at; copy that file into the fixture instead`,
        ),
      };
    }
    // The same place in the copy, relative to the link's own folder there.
    const inCopy = relative(join(realRoot, dirname(entry)), real) || ".";
    return { kind: "link", path, entry, text: inCopy };
  }
  const what = stat.isFIFO() ? "a FIFO" : stat.isSocket() ? "a socket" : "a device";
  return {
    kind: "problem",
    problem: problem(fixture, entry, `is ${what}: a fixture holds only files, folders and links`),
  };
}

function problem(fixture: string, entry: string, what: string): FixtureProblem {
  return { fixture, entry, message: `the fixture ${fixture}: ${entry} ${what}` };
}

/** Copies the checked tree, refusing at the first problem; `written` gets each entry it adds. */
function copyTree(fixture: string, target: string, written: string[]): void {
  walkFixture(fixture, (entry) => {
    if (entry.kind === "problem") throw fixtureError(entry.problem);
    const destination = join(target, entry.entry);
    let existed = lstatSync(destination, { throwIfNoEntry: false });
    // Never write through a link already in the target (a worktree's own): it could lead outside.
    if (existed && !existed.isDirectory()) {
      unlinkSync(destination);
      existed = undefined;
    }
    if (entry.kind === "folder") {
      if (!existed) {
        mkdirSync(destination);
        written.push(destination);
      }
      return;
    }
    if (!existed) written.push(destination);
    if (entry.kind === "file") {
      try {
        copyFileSync(entry.path, destination);
      } catch (error) {
        throw fixtureError(problem(fixture, entry.entry, `cannot be copied (${reason(error)})`), error);
      }
      return;
    }
    symlinkSync(entry.text, destination);
  });
}

/**
 * Every file and folder under `root` gets its time, one second apart in path order, the folder
 * itself the first. lutimes: a link's own time is set, never its target's.
 */
function stampTimes(root: string): void {
  // Children before their folder: setting a file's time does not touch its folder's, but creating
  // it did, so folders are stamped last.
  listTree(root).forEach((path, index) => {
    const time = new Date(FIXTURE_TIME + index * 1000);
    lutimesSync(path, time, time);
  });
  const time = new Date(FIXTURE_TIME);
  lutimesSync(root, time, time);
}

/** Every file, folder and link under `root` (not root itself, nor .git), as absolute paths in path order. */
function listTree(root: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === ".git" && folder === root) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      found.push(path);
    }
  };
  walk(root);
  return found.sort((a, b) => relative(root, a).localeCompare(relative(root, b)));
}

function fixtureError(found: FixtureProblem, cause?: unknown): WorktreeError {
  return new WorktreeError(
    "INVALID_FIXTURE",
    found.message,
    { fixture: found.fixture, entry: found.entry },
    cause === undefined ? undefined : { cause },
  );
}

function copyError(fixture: string, error: unknown): WorktreeError {
  return new WorktreeError(
    "INVALID_FIXTURE",
    `the fixture ${fixture} cannot be copied: ${reason(error)}`,
    {
      fixture,
    },
    { cause: error },
  );
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code
    ? `${code}: ${(error as Error).message.replace(/^\w+: /, "")}`
    : String((error as Error).message ?? error);
}
