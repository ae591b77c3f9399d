import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isAlive, killProcessTree, RUN_MARKER_ENV, runProcesses } from "../src/process.js";

/**
 * A tree like the CLI's: a detached root, a child in the root's group, and a grandchild in a
 * session of its own (as Claude Code's Bash tool starts commands) that ignores SIGTERM.
 */
function spawnTree(marker: string, pidFile: string) {
  const script = `
    const { spawn } = require("node:child_process");
    const { writeFileSync } = require("node:fs");
    const keep = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)";
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const loner = spawn(process.execPath, ["-e", keep], { stdio: "ignore", detached: true });
    writeFileSync(${JSON.stringify(pidFile)}, JSON.stringify([child.pid, loner.pid]));
    setInterval(() => {}, 1000);
  `;
  return spawn(process.execPath, ["-e", script], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, [RUN_MARKER_ENV]: marker },
  });
}

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("killProcessTree", () => {
  it("ends the root, its group and a descendant in its own session that ignores SIGTERM", async () => {
    const marker = randomUUID();
    const pidFile = join(tmpdir(), `harness-tree-${marker}.json`);
    const root = spawnTree(marker, pidFile);
    try {
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").length > 0);
      const [child, loner] = JSON.parse(readFileSync(pidFile, "utf8")) as [number, number];
      expect(
        runProcesses(root.pid, marker)
          .map((proc) => proc.pid)
          .sort(),
      ).toEqual([root.pid!, child, loner].sort());

      const killed = await killProcessTree(root.pid, { marker, graceMs: 300 });
      expect(killed.sort()).toEqual([root.pid!, child, loner].sort());
      await waitFor(() => ![root.pid!, child, loner].some(isAlive));
      expect(runProcesses(undefined, marker)).toEqual([]);
    } finally {
      rmSync(pidFile, { force: true });
      root.kill("SIGKILL");
    }
  });

  it("finds processes re-parented away from the tree by the marker they inherited", async () => {
    const marker = randomUUID();
    const pidFile = join(tmpdir(), `harness-orphan-${marker}.json`);
    const root = spawnTree(marker, pidFile);
    try {
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").length > 0);
      const [child, loner] = JSON.parse(readFileSync(pidFile, "utf8")) as [number, number];
      process.kill(-root.pid!, "SIGKILL"); // the root's group goes; the loner is orphaned
      // SIGKILL is delivered asynchronously: wait until the whole group has died, not only the root.
      await waitFor(() => !isAlive(root.pid!) && !isAlive(child));
      expect(isAlive(loner)).toBe(true);
      expect(runProcesses(undefined, marker).map((proc) => proc.pid)).toEqual([loner]);
      await killProcessTree(undefined, { marker, graceMs: 100 });
      await waitFor(() => !isAlive(loner));
    } finally {
      rmSync(pidFile, { force: true });
    }
  });
});
