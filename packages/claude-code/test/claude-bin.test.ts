import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ClaudeNotFoundError, claudeAvailable, findClaude, skipIfNoClaude } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "harness-bin-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fakeClaude(path: string, script = 'echo "2.1.330 (Claude Code)"'): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("findClaude", () => {
  it("takes the option first, then EVALS_CLAUDE_BIN, then node_modules/.bin walking up, then PATH", () => {
    const project = join(dir, "project", "packages", "deep");
    mkdirSync(project, { recursive: true });
    const inNodeModules = fakeClaude(join(dir, "project", "node_modules", ".bin", "claude"));
    const onPath = fakeClaude(join(dir, "path-bin", "claude"));
    const fromEnv = fakeClaude(join(dir, "env-bin", "claude"));
    const option = fakeClaude(join(dir, "option-bin", "claude"));
    const env = { PATH: join(dir, "path-bin"), EVALS_CLAUDE_BIN: fromEnv };

    expect(findClaude({ claudeBin: option, from: project, env })).toBe(option);
    expect(findClaude({ from: project, env })).toBe(fromEnv);
    expect(findClaude({ from: project, env: { PATH: env.PATH } })).toBe(inNodeModules);
    expect(findClaude({ from: dir, env: { PATH: env.PATH } })).toBe(onPath);
  });

  it("says where it looked and how to install claude when there is none", () => {
    let error: unknown;
    try {
      findClaude({ from: dir, env: { PATH: join(dir, "empty") } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ClaudeNotFoundError);
    const message = (error as Error).message;
    expect(message).toContain("Claude Code CLI not found");
    expect(message).toContain(join(dir, "node_modules", ".bin", "claude"));
    expect(message).toContain("npm install -D @anthropic-ai/claude-code@2.1.330");
    expect(message).toContain("EVALS_CLAUDE_BIN");
  });

  it("does not fall back when an explicit path is wrong", () => {
    fakeClaude(join(dir, "node_modules", ".bin", "claude"));
    expect(() => findClaude({ claudeBin: join(dir, "nope"), from: dir, env: {} })).toThrow(
      /the claudeBin option names no executable/,
    );
    expect(() => findClaude({ from: dir, env: { EVALS_CLAUDE_BIN: join(dir, "nope") } })).toThrow(
      /EVALS_CLAUDE_BIN names no executable/,
    );
  });
});

describe("claudeAvailable / skipIfNoClaude", () => {
  it("reports the version of a working claude", () => {
    const bin = fakeClaude(join(dir, "ok", "claude"));
    expect(claudeAvailable({ claudeBin: bin })).toEqual({ available: true, bin, version: "2.1.330" });
  });

  it("reports a claude that does not run, and skips the test with the reason", () => {
    const broken = fakeClaude(join(dir, "broken", "claude"), "echo placeholder >&2; exit 1");
    const availability = claudeAvailable({ claudeBin: broken });
    expect(availability.available).toBe(false);
    if (!availability.available) expect(availability.reason).toContain("--version failed");
    const skipped: string[] = [];
    const reason = skipIfNoClaude({ skip: (note) => skipped.push(note ?? "") }, { claudeBin: broken });
    expect(reason).toContain("placeholder");
    expect(skipped[0]).toMatch(/^claude is not available: /);
  });

  it("keeps the reason in the test's meta, which vitest's JSON report holds", () => {
    const broken = fakeClaude(join(dir, "broken-meta", "claude"), "exit 1");
    const task = { meta: {} };
    skipIfNoClaude({ skip: () => undefined, task }, { claudeBin: broken });
    expect(task.meta).toEqual({
      skipReason: expect.stringMatching(/^claude is not available: .*--version failed/),
    });
  });

  it("does not skip when claude is there", () => {
    const bin = fakeClaude(join(dir, "fine", "claude"));
    const skipped: string[] = [];
    expect(skipIfNoClaude({ skip: (note) => skipped.push(note ?? "") }, { claudeBin: bin })).toBeUndefined();
    expect(skipped).toEqual([]);
  });
});
