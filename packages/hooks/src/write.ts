import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { OUTPUT_FOLDER, RESERVE_BYTES, RESERVE_FILE } from "./paths.js";

/**
 * How the hook writes: folders made one level at a time (never through a symbolic link below the
 * output root), and lines appended whole or not at all. Plain Node, no zod: the hook executable
 * imports this file.
 *
 * Node's `mkdirSync(..., { recursive: true })` loops forever where mkdir(2) answers ENOENT for a
 * parent that exists (under /proc, for one), so it is not used here.
 */

/** A write the hook refused or could not make; the message says which file and why. */
export class HookWriteError extends Error {
  override readonly name = "HookWriteError";
}

/**
 * Makes `<root>/test-output/<runId>` (and the root when missing) and returns it. `test-output` and
 * the run folder must be real folders: a symbolic link at either is refused, so nothing is ever
 * written through a link out of the root.
 */
export function ensureRunDir(root: string, runId: string, options: { reserve?: boolean } = {}): string {
  makeFolders(root);
  const outputDir = join(root, OUTPUT_FOLDER);
  makeRealFolder(outputDir);
  const runDir = join(outputDir, runId);
  makeRealFolder(runDir);
  if (options.reserve) keepReserve(runDir);
  return runDir;
}

/** Makes the run's reserve (see RESERVE_FILE) unless it exists; a failure is ignored. */
function keepReserve(runDir: string): void {
  const file = join(runDir, RESERVE_FILE);
  if (existsSync(file)) return;
  let fd: number | undefined;
  try {
    fd = openSync(
      file,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    );
    writeSync(fd, Buffer.alloc(RESERVE_BYTES, 0x20));
  } catch {
    // Another hook made it, or there is no room for it.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Frees the run's reserve: on a full disk (so the error can be logged), and at Stop / SessionEnd. */
export function releaseReserve(runDir: string): void {
  try {
    unlinkSync(join(runDir, RESERVE_FILE));
  } catch {
    // Not there.
  }
}

/**
 * The folder where `hook-errors.log` can be written for this run: the run folder when it is a
 * real folder, else `<root>/test-output` when that is one, else undefined.
 */
export function errorLogDir(root: string, runId: string): string | undefined {
  const outputDir = join(root, OUTPUT_FOLDER);
  if (!isRealFolder(outputDir)) return undefined;
  const runDir = join(outputDir, runId);
  return isRealFolder(runDir) ? runDir : outputDir;
}

/**
 * Appends `text` (one line, ending with "\n") to `file` in one write(2) on an O_APPEND descriptor,
 * so concurrent writers never interleave. A short or failed write (a full disk) is rolled back: the
 * file is cut back to where this line started, when no other line was appended after it, so no
 * unfinished line is left for the next one to merge into. `file` itself must not be a symbolic
 * link. Throws HookWriteError.
 */
export function appendWholeLine(file: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(
      file,
      constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0),
      0o644,
    );
  } catch (error) {
    throw new HookWriteError(`cannot open ${file}: ${describe(error)}`);
  }
  try {
    const line = Buffer.from(text, "utf8");
    let written = 0;
    let failure: unknown;
    try {
      written = writeSync(fd, line, 0, line.length);
    } catch (error) {
      failure = error;
    }
    if (written === line.length) return;
    if (written > 0) rollBack(fd, line.subarray(0, written));
    throw new HookWriteError(
      `could not append to ${file}: ${failure ? describe(failure) : `wrote ${written} of ${line.length} bytes`} (nothing kept)`,
    );
  } finally {
    closeSync(fd);
  }
}

/** Cuts off `partial` if it is still the end of the file (no other line appended after it). */
function rollBack(fd: number, partial: Buffer): void {
  try {
    const size = fstatSync(fd).size;
    const start = size - partial.length;
    if (start < 0) return;
    const tail = Buffer.alloc(partial.length);
    if (readSync(fd, tail, 0, partial.length, start) === partial.length && tail.equals(partial)) {
      ftruncateSync(fd, start);
    }
  } catch {
    // Left as it is: readers report the unfinished line.
  }
}

function makeFolders(folder: string): void {
  if (isFolder(folder)) return;
  const parent = dirname(folder);
  if (parent !== folder) makeFolders(parent);
  try {
    mkdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !isFolder(folder)) {
      throw new HookWriteError(`cannot create ${folder}: ${describe(error)}`);
    }
  }
}

function makeRealFolder(folder: string): void {
  try {
    mkdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new HookWriteError(`cannot create ${folder}: ${describe(error)}`);
    }
  }
  if (!isRealFolder(folder)) {
    throw new HookWriteError(`refused to write through ${folder}: it is a symbolic link or not a folder`);
  }
}

/** Above test-output, links are fine (the root may be reached through one, as /tmp is on some systems). */
function isFolder(folder: string): boolean {
  try {
    return statSync(folder, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

function isRealFolder(folder: string): boolean {
  try {
    return lstatSync(folder, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Removes the unfinished last line of `file` when it is a raw line of the shell hook with process
 * id `pid` (its append failed half-way, on a full disk), so that nothing is left merged or torn.
 */
export function dropUnfinishedLine(file: string, pid: number): void {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDWR | (constants.O_NOFOLLOW ?? 0));
    const size = fstatSync(fd).size;
    const length = Math.min(size, 8 * 1024 * 1024);
    const tail = Buffer.alloc(length);
    readSync(fd, tail, 0, length, size - length);
    if (tail[length - 1] === 0x0a) return;
    const start = tail.lastIndexOf(0x0a) + 1;
    if (start === 0 && length < size) return;
    const unfinished = tail.subarray(start).toString("utf8");
    if (unfinished.startsWith('{"version":2,') && unfinished.includes(`,"pid":${pid},"event":`)) {
      ftruncateSync(fd, size - length + start);
    }
  } catch {
    // Nothing to remove, or it cannot be removed: readers report the unfinished line.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
