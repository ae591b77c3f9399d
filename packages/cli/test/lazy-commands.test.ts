import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { evalsBin } from "./evals-bin.js";

const temp = mkdtempSync(join(tmpdir(), "evals-lazy-commands-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const register = join(import.meta.dirname, "__fixtures__", "loaded-packages", "register.mjs");

/** The packages (workspace packages by folder name, others by name) `evals <args>` imported. */
function packagesLoadedBy(args: string[]): { code: number | null; packages: string[] } {
  const file = join(temp, `loaded-${args[0]}.txt`);
  const child = spawnSync(process.execPath, ["--import", register, evalsBin, ...args], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, LOADED_MODULES_FILE: file, FORCE_COLOR: "0" },
  });
  const urls = readFileSync(file, "utf8").trim().split("\n");
  const packages = new Set(
    urls.flatMap((url) => {
      const found = /\/packages\/([^/]+)\/dist\/|\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      return found ? [found[1] ?? found[2]!] : [];
    }),
  );
  return { code: child.status, packages: [...packages].sort() };
}

describe("evals loads what the command it runs needs, not every command's packages", () => {
  it("evals history loads the results database, not the agent runners, the rules or the server client", () => {
    const { code, packages } = packagesLoadedBy(["history", "--db", join(temp, "no-db-yet")]);
    expect(code).toBe(0);
    expect(packages).toContain("store");
    for (const unneeded of [
      "harness",
      "claude-code",
      "opencode",
      "codex",
      "gemini-cli",
      "vcr",
      "viewer",
      "evaluators",
      "pg",
    ])
      expect(packages).not.toContain(unneeded);
  });

  it("evals --version loads no other package", () => {
    const { code, packages } = packagesLoadedBy(["--version"]);
    expect(code).toBe(0);
    expect(packages).toEqual(["cli"]);
  });
});
