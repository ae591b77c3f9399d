import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const dist = pathToFileURL(join(__dirname, "..", "dist", "process.js")).href;
const distCjs = join(__dirname, "..", "dist", "process.cjs");
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A child node process that starts a detached `sleep` (in a group of its own) and guards it, with
 * the ESM build or the CommonJS one (which finds the watchdog's script by its shimmed import.meta.url).
 */
const ownerOf = (build: "esm" | "cjs") => `
${build === "esm" ? `import { spawn } from "node:child_process";\nimport { guardUntilExit } from ${JSON.stringify(dist)};` : `const { spawn } = require("node:child_process");\nconst { guardUntilExit } = require(${JSON.stringify(distCjs)});`}
const [dir, removed] = process.argv.slice(1);
const sleeper = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
const guard = guardUntilExit({ group: true, redact: { dir, patterns: [/planted-secret-\\w+/g] }, remove: [removed] });
guard.started(sleeper.pid);
console.log(String(sleeper.pid));
setInterval(() => undefined, 1000);
`;

function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return condition();
}

describe.each(["esm", "cjs"] as const)("guardUntilExit (the %s build)", (build) => {
  it("kills the guarded process group, redacts and removes when its owner is SIGKILLed", async () => {
    const root = mkdtempSync(join(tmpdir(), "core-watchdog-"));
    dirs.push(root);
    const dir = join(root, "out");
    mkdirSync(dir);
    writeFileSync(join(dir, "log.txt"), "token planted-secret-abc\n");
    const removed = join(root, "sandbox");
    mkdirSync(removed);
    const typeFlag = build === "esm" ? "--input-type=module" : "--input-type=commonjs";
    const child = spawn(process.execPath, [typeFlag, "-e", ownerOf(build), dir, removed], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    const sleeper = await new Promise<number>((resolve, reject) => {
      child.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      child.once("exit", () => reject(new Error("the owner ended early")));
    });
    try {
      expect(running(sleeper)).toBe(true);
      child.kill("SIGKILL");
      expect(await waitFor(() => !running(sleeper)), "the guarded process outlived its owner").toBe(true);
      expect(await waitFor(() => !existsSync(removed))).toBe(true);
      expect(readFileSync(join(dir, "log.txt"), "utf8")).toBe("token [REDACTED]\n");
    } finally {
      try {
        process.kill(-sleeper, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
  });
});
