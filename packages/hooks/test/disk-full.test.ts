import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readHookErrors } from "../src/index.js";
import { ENTRIES, type HookEntry, runHook, tempDir } from "./spawn-hook.js";

/**
 * A full disk, for real where this process may mount one (a 64 KiB tmpfs, as root), else a stub of
 * the write call: a `--require`d module makes fs.writeSync write half of a large line and then fail
 * with ENOSPC, as a full disk does (the stub reaches only the Node entry). The test names the
 * method it used.
 */

const temp = tempDir("disk-full");
const mounted: string[] = [];
afterAll(() => {
  for (const dir of mounted) spawnSync("umount", [dir]);
  temp.cleanup();
});

type Disk = { root: string; method: "tmpfs" | "stub"; nodeOptions?: string[] };

function smallDisk(name: string): Disk {
  const root = join(temp.dir, name);
  mkdirSync(root, { recursive: true });
  const mount = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", root]);
  if (mount.status === 0) {
    mounted.push(root);
    // Leave about 20 KiB free: the first events fit, later ones do not.
    const free = statfsSync(root).bavail * statfsSync(root).bsize;
    writeFileSync(join(root, "filler"), Buffer.alloc(Math.max(0, free - 20 * 1024)));
    return { root, method: "tmpfs" };
  }
  const stub = join(temp.dir, "enospc-stub.cjs");
  writeFileSync(
    stub,
    `const fs = require("node:fs");
const writeSync = fs.writeSync;
let used = 0;
fs.writeSync = function (fd, buffer, offset = 0, length = buffer.length - offset, ...rest) {
  if (Buffer.isBuffer(buffer) && buffer.includes("toolu_disk_") && used + length > 20 * 1024) {
    writeSync.call(fs, fd, buffer, offset, Math.floor(length / 2), ...rest);
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  }
  used += length;
  return writeSync.call(fs, fd, buffer, offset, length, ...rest);
};
`,
  );
  return { root, method: "stub", nodeOptions: ["--require", stub] };
}

/** Hook inputs of growing size, each naming itself in its tool_use_id (within the first 200 bytes). */
function sizedInputs(count: number): { id: string; input: string }[] {
  return Array.from({ length: count }, (_, index) => {
    const id = `toolu_disk_${index}`;
    const input = JSON.stringify({
      session_id: "s-disk",
      cwd: "/project",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_use_id: id,
      tool_input: { command: `echo ${"x".repeat(300 + ((index * 1_777) % 7_000))}` },
    });
    return { id, input };
  });
}

describe.each(ENTRIES)("a full disk, the %s entry", (entry: HookEntry) => {
  it("appends each event whole or not at all, and logs every one it could not append", async (ctx) => {
    const disk = smallDisk(`disk-${entry}`);
    // The stub reaches Node only: without a tmpfs (not root) the shell entry is not tested, and says so.
    if (disk.method === "stub" && entry === "shell") ctx.skip("no tmpfs could be mounted (not root)");
    console.info(
      `full disk by ${disk.method === "tmpfs" ? "a 64 KiB tmpfs mount" : "a stub of fs.writeSync"}`,
    );
    const inputs = sizedInputs(24);
    for (const { input } of inputs) {
      const result = await runHook(input, {
        entry,
        env: { TEST_MODE: "true", TEST_RUN_ID: "full", EVALS_OUTPUT_DIR: disk.root },
        ...(disk.nodeOptions ? { nodeOptions: disk.nodeOptions } : {}),
      });
      expect(result).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
    }
    const runDir = join(disk.root, "test-output", "full");
    const file = join(runDir, "events.jsonl");
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    // Whole lines only: nothing unfinished, nothing merged.
    expect(text === "" || text.endsWith("\n")).toBe(true);
    const captured = text
      .split("\n")
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { event: { tool_use_id: string } }).event.tool_use_id);
    const logged = (await readHookErrors(runDir)).filter((error) => error.kind === "write_failed");
    for (const error of logged) expect(error.message).toMatch(/ENOSPC|wrote \d+ of \d+ bytes/);
    // An event that is not in events.jsonl is named in hook-errors.log (by its input's first bytes).
    const loggedIds = logged.map((error) => /toolu_disk_\d+/.exec(error.input_head ?? "")?.[0]);
    const lostSilently = inputs.filter(({ id }) => !captured.includes(id) && !loggedIds.includes(id));
    expect(captured.length).toBeGreaterThan(0);
    expect(captured.length).toBeLessThan(inputs.length);
    expect(lostSilently).toEqual([]);
    expect(new Set(captured).size).toBe(captured.length);
  });
});
