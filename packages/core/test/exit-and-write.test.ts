import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { writeFileAtomic } from "../src/index.js";

const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const scratch = () => mkdtempSync(join(tmpdir(), "core-exit-write-"));

describe("writeFileAtomic", () => {
  it("creates the folders, replaces the content whole, and leaves no temporary file", () => {
    const dir = scratch();
    const file = join(dir, "nested", "result.json");
    writeFileAtomic(file, "first\n");
    writeFileAtomic(file, "second\n");
    expect(readFileSync(file, "utf8")).toBe("second\n");
    expect(readdirSync(join(dir, "nested"))).toEqual(["result.json"]);
  });

  it("writes with the mode and encoding it is given", () => {
    const dir = scratch();
    const file = join(dir, "run.sh");
    writeFileAtomic(file, "caf\u00e9\n", { encoding: "latin1", mode: 0o100700 });
    expect(readFileSync(file)).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect(statSync(file).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual(["run.sh"]);
  });
});

describe("registerExitCleanup", () => {
  it("runs kill, save and remove clean-ups in that order on SIGTERM, then dies of the signal", () => {
    const dir = scratch();
    const log = join(dir, "log");
    const script = `
      import { appendFileSync } from "node:fs";
      import { registerExitCleanup } from ${JSON.stringify(dist)};
      const note = (what) => () => appendFileSync(${JSON.stringify(log)}, what + "\\n");
      registerExitCleanup(note("remove"), "remove");
      const unregistered = registerExitCleanup(note("never"), "kill");
      registerExitCleanup(note("save"), "save");
      registerExitCleanup(note("kill"), "kill");
      unregistered();
      process.kill(process.pid, "SIGTERM");
      setTimeout(() => {}, 5000);
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { timeout: 20_000 });
    expect(child.signal).toBe("SIGTERM");
    expect(existsSync(log)).toBe(true);
    expect(readFileSync(log, "utf8")).toBe("kill\nsave\nremove\n");
  });
});
