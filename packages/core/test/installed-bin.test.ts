import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findInstalledBin } from "../src/process.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "installed-bin-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function executable(path: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, 0o755);
  return path;
}

const lookup = { option: { name: "agentBin", value: undefined }, envVar: "EVALS_AGENT_BIN" };

describe("findInstalledBin", () => {
  it("takes the option, then the variable, then node_modules/.bin up from `from` and `alsoFrom`, then PATH", () => {
    const project = join(dir, "project", "deep");
    const own = join(dir, "runner", "dist");
    mkdirSync(project, { recursive: true });
    mkdirSync(own, { recursive: true });
    const option = executable(join(dir, "option", "agent"));
    const fromEnv = executable(join(dir, "env", "agent"));
    const onPath = executable(join(dir, "path", "agent"));
    const env = { PATH: join(dir, "path"), EVALS_AGENT_BIN: fromEnv };
    const ownBin = executable(join(dir, "runner", "node_modules", ".bin", "agent"));

    expect(
      findInstalledBin("agent", { ...lookup, option: { name: "agentBin", value: option }, env }).bin,
    ).toBe(option);
    expect(findInstalledBin("agent", { ...lookup, from: project, env }).bin).toBe(fromEnv);
    expect(
      findInstalledBin("agent", { ...lookup, from: project, alsoFrom: [own], env: { PATH: env.PATH } }).bin,
    ).toBe(ownBin);
    expect(findInstalledBin("agent", { ...lookup, from: project, env: { PATH: env.PATH } }).bin).toBe(onPath);
    const projectBin = executable(join(dir, "project", "node_modules", ".bin", "agent"));
    expect(findInstalledBin("agent", { ...lookup, from: project, alsoFrom: [own], env: {} }).bin).toBe(
      projectBin,
    );
  });

  it("tries nothing else when the option or the variable names a path that is not executable", () => {
    executable(join(dir, "node_modules", ".bin", "agent"));
    const missing = join(dir, "nope");
    expect(
      findInstalledBin("agent", { ...lookup, option: { name: "agentBin", value: missing }, from: dir }),
    ).toEqual({
      searched: [`agentBin option: ${missing}`],
      explicit: "option",
    });
    expect(findInstalledBin("agent", { ...lookup, from: dir, env: { EVALS_AGENT_BIN: missing } })).toEqual({
      searched: [`EVALS_AGENT_BIN: ${missing}`],
      explicit: "env",
    });
  });

  it("lists every place it looked when there is none", () => {
    const found = findInstalledBin("agent", {
      ...lookup,
      from: join(dir, "a"),
      env: { PATH: join(dir, "empty") },
    });
    expect(found.bin).toBeUndefined();
    expect(found.searched).toContain("agentBin option: not set");
    expect(found.searched).toContain("EVALS_AGENT_BIN: not set");
    expect(found.searched).toContain(join(dir, "a", "node_modules", ".bin", "agent"));
    expect(found.searched.at(-1)).toBe("PATH (1 directories)");
  });
});
