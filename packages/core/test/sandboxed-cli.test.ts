import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isAlive, RUN_MARKER_ENV, runProcesses, spawnSandboxedCli } from "../src/process.js";

/** A CLI: node running `script`, with only PATH and the run's marker in its environment. */
function node(script: string, marker = randomUUID()) {
  return {
    bin: process.execPath,
    args: ["-e", script],
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "", [RUN_MARKER_ENV]: marker },
    marker,
  };
}

describe("spawnSandboxedCli", () => {
  it("gives stdout line by line (a line split across writes, a last line without newline), stderr and the exit code", async () => {
    const lines: string[] = [];
    const cli = spawnSandboxedCli({
      ...node(`
        process.stdout.write('{"a":'); setTimeout(() => {
          process.stdout.write('1}\\n\\n  \\nsecond\\nlast');
          process.stderr.write('something went wrong\\n');
          process.exitCode = 3;
        }, 50);`),
      timeoutMs: 30_000,
      onLine: (line) => lines.push(line),
    });
    expect(cli.pid).toBeGreaterThan(0);
    const exit = await cli.exited;
    expect(lines).toEqual(['{"a":1}', "second", "last"]);
    expect(exit).toMatchObject({ exitCode: 3, stderr: "something went wrong\n", leftovers: [] });
    expect(exit.stopped).toBeUndefined();
    expect(exit.spawnError).toBeUndefined();
  });

  it("writes `input` on stdin and closes it; with feedStdin the caller writes", async () => {
    const echo = "process.stdin.pipe(process.stdout)";
    const given: string[] = [];
    await spawnSandboxedCli({
      ...node(echo),
      input: "one\ntwo\n",
      timeoutMs: 30_000,
      onLine: (l) => given.push(l),
    }).exited;
    expect(given).toEqual(["one", "two"]);

    const fed: string[] = [];
    const cli = spawnSandboxedCli({
      ...node(echo),
      feedStdin: true,
      timeoutMs: 30_000,
      onLine: (line) => {
        fed.push(line);
        if (line === "turn 1") cli.stdin?.end("turn 2\n");
      },
    });
    cli.stdin?.write("turn 1\n");
    const exit = await cli.exited;
    expect(fed).toEqual(["turn 1", "turn 2"]);
    expect(exit.exitCode).toBe(0);
  });

  it("on timeout ends the whole tree, a child that ignores SIGTERM included, and says so", async () => {
    const run = node(`
      const { spawn } = require("node:child_process");
      const stubborn = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: "ignore" });
      console.log(String(stubborn.pid));
      process.on("SIGTERM", () => {});
      setInterval(() => {}, 1000);`);
    let child = 0;
    const started = Date.now();
    const exit = await spawnSandboxedCli({
      ...run,
      timeoutMs: 500,
      killGraceMs: 200,
      onLine: (line) => {
        child = Number(line);
      },
    }).exited;
    expect(exit.stopped).toEqual({ kind: "timeout" });
    expect(exit.exitCode).toBeNull();
    expect(exit.signal).toBe("SIGKILL");
    expect(child).toBeGreaterThan(0);
    expect(isAlive(child)).toBe(false);
    expect(runProcesses(undefined, run.marker)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("stops for the caller's own reason and for an abort, keeping the first reason", async () => {
    const forever = "console.log('tick'); setInterval(() => {}, 1000)";
    const cli = spawnSandboxedCli<{ kind: "max_steps"; steps: number }>({
      ...node(forever),
      timeoutMs: 30_000,
      onLine: () => {
        cli.stop({ kind: "max_steps", steps: 1 });
        cli.stop({ kind: "aborted" });
      },
    });
    expect((await cli.exited).stopped).toEqual({ kind: "max_steps", steps: 1 });

    const controller = new AbortController();
    controller.abort();
    const aborted = await spawnSandboxedCli({
      ...node(forever),
      timeoutMs: 30_000,
      signal: controller.signal,
    }).exited;
    expect(aborted.stopped).toEqual({ kind: "aborted" });
  });

  it("kills what carries the marker after the CLI exited, and lists it", async () => {
    const run = node(`
      const { spawn } = require("node:child_process");
      spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore", detached: true }).unref();
      setTimeout(() => process.exit(0), 200);`);
    const exit = await spawnSandboxedCli({ ...run, timeoutMs: 30_000 }).exited;
    expect(exit.exitCode).toBe(0);
    if (process.platform === "linux") {
      expect(exit.leftovers).toHaveLength(1);
      expect(isAlive(exit.leftovers[0]!.pid)).toBe(false);
      expect(runProcesses(undefined, run.marker)).toEqual([]);
    }
  });

  it("says in one short line why a CLI could not be started", async () => {
    const missing = await spawnSandboxedCli({ ...node(""), bin: "/nonexistent/agent-cli", timeoutMs: 30_000 })
      .exited;
    expect(missing.spawnError).toMatch(/ENOENT/);
    expect(missing.exitCode).toBeNull();

    const tooLong = await spawnSandboxedCli({
      ...node(""),
      args: ["-e", "x".repeat(300_000)],
      timeoutMs: 30_000,
    }).exited;
    expect(tooLong.spawnError).toBe("spawn E2BIG");
  });
});
