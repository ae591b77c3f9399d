import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanupLeftoverRuns } from "../src/process.js";
import { runLocksDir } from "../src/run-guard.js";

const made: string[] = [];
afterEach(() => {
  for (const path of made.splice(0)) rmSync(path, { recursive: true, force: true });
});

/** A pid that belonged to a process that has ended. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

function plantLock(ownerPid: number, sandbox: string, outputDir: string): string {
  mkdirSync(runLocksDir(), { recursive: true });
  const marker = randomUUID();
  const file = join(runLocksDir(), `${marker}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      marker,
      owner_pid: ownerPid,
      hostname: hostname(),
      output_dir: outputDir,
      sandbox,
      created_at: new Date().toISOString(),
    }),
  );
  made.push(file);
  return file;
}

describe("cleanupLeftoverRuns", () => {
  it("cleans up after dead owners only, and deletes only our own sandboxes", async () => {
    const ours = mkdtempSync(join(tmpdir(), "evals-leftover-test-"));
    const foreign = mkdtempSync(join(tmpdir(), "not-evals-"));
    const outputDir = mkdtempSync(join(tmpdir(), "leftover-output-"));
    made.push(ours, foreign, outputDir);
    writeFileSync(join(outputDir, "stream.jsonl"), '{"key":"sk-ant-api03-leftoverSECRET"}\n');
    const liveLock = plantLock(process.pid, ours, outputDir);
    const deadLock = plantLock(deadPid(), ours, outputDir);
    const deadForeignLock = plantLock(deadPid(), foreign, outputDir);

    // The live owner's run is not touched, even though it names the same sandbox.
    const report = await cleanupLeftoverRuns();
    expect(report.runs).not.toContain(liveLock);
    expect(existsSync(liveLock)).toBe(true);
    expect(report.runs).toEqual(expect.arrayContaining([deadLock, deadForeignLock]));
    expect(existsSync(deadLock)).toBe(false);
    expect(existsSync(deadForeignLock)).toBe(false);
    expect(report.sandboxes).toContain(ours);
    expect(existsSync(ours)).toBe(false);
    // A folder that is not one of our sandboxes is never deleted, whatever a lock file says.
    expect(report.sandboxes).not.toContain(foreign);
    expect(existsSync(foreign)).toBe(true);
    // What the dead run left in its output folder is redacted.
    expect(readFileSync(join(outputDir, "stream.jsonl"), "utf8")).toBe('{"key":"[REDACTED]"}\n');
  });
});
