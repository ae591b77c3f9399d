import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Writes a file so that readers see either the old content or the new, never half of it: the text
 * goes to a temporary file in the same folder, is flushed to disk, then renamed over the target.
 */
export interface WriteFileAtomicOptions {
  /** How the text is encoded (default utf8; `latin1` writes bytes read as latin1 back unchanged). */
  encoding?: BufferEncoding;
  /** The new file's permission bits (default 0o666, less the umask), e.g. the mode of the file replaced. */
  mode?: number;
}

export function writeFileAtomic(file: string, content: string, options: WriteFileAtomicOptions = {}): void {
  const folder = dirname(file);
  mkdirSync(folder, { recursive: true });
  const temp = join(folder, `.${basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const fd = openSync(temp, "w", options.mode === undefined ? 0o666 : options.mode & 0o7777);
  try {
    writeSync(fd, content, null, options.encoding ?? "utf8");
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
