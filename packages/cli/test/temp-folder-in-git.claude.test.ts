import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { claudeAvailable } from "@evals/claude-code";
import { claudeProjectKey } from "@evals/core";
import { describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { tempDirs } from "./temp-dirs.js";

/**
 * Claude Code keys its memory folder (`<config dir>/projects/<key>/memory`, named in the system
 * prompt) by the git root above its cwd. A trial's fixture copy lives in the temp folder, so a `.git`
 * there (a stray `/tmp/.git`, seen in CI as `projects/-tmp/memory`) changes the key of every trial
 * started meanwhile. The find-todos example's recordings must replay all the same.
 */

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const cliJs = resolve(__dirname, "../dist/cli.js");
const findTodos = resolve(__dirname, "../../../examples/find-todos");
const tempDir = tempDirs();

/** The find-todos example's cases, recordings and fixture, copied into a folder of their own. */
function project(): string {
  const dir = tempDir("evals-find-todos-copy-");
  for (const part of ["cases", "cassettes", "__fixtures__"])
    cpSync(join(findTodos, part), join(dir, part), { recursive: true });
  return dir;
}

/** `evals run` of the example's cases, replayed strictly, with `tmp` as the temp folder (TMPDIR). */
function replay(dir: string, tmp: string) {
  const result = spawnSync(
    process.execPath,
    [
      ...[cliJs, "run", "cases/find-todos.yaml", "--cassettes", "cassettes", "--suite", "find-todos"],
      ...["--mode", "strict", "--db", join(dir, "db")],
    ],
    {
      cwd: dir,
      encoding: "utf8",
      timeout: 300_000,
      env: { ...process.env, EVALS_CLAUDE_BIN: claudeBin, EVALS_OUTPUT_DIR: dir, TMPDIR: tmp, CI: "" },
    },
  );
  return { code: result.status, out: result.stdout + result.stderr };
}

describe.skipIf(!claudeAvailable({ claudeBin }).available)("a temp folder inside a git repository", () => {
  const strays: Array<[string, (tmp: string) => void]> = [
    ["a repository made with git init", (tmp) => spawnSync("git", ["init", "-q"], { cwd: tmp })],
    // The CLI looks only for the name: an empty `.git` is a git root too (CI's trial saw one that git
    // could not read: branch "HEAD", status unavailable, no commits).
    ["an empty .git folder", (tmp) => mkdirSync(join(tmp, ".git"))],
  ];
  it.each(strays)(
    "replays the find-todos recordings when the temp folder holds %s",
    (_, makeStray) => {
      const dir = project();
      const tmp = join(tempDir("evals-stray-git-"), "tmp");
      mkdirSync(tmp);
      makeStray(tmp);
      const run = replay(dir, tmp);
      expect(run.out).not.toContain("replay diverged");
      expect(run.code, run.out).toBe(EXIT.passed);
      // The condition was real: each trial's memory folder was keyed by the temp folder, not its cwd.
      const outputs = readdirSync(join(dir, "test-output"));
      expect(outputs).toHaveLength(2);
      for (const output of outputs) {
        const init = JSON.parse(
          readFileSync(join(dir, "test-output", output, "stream.jsonl"), "utf8").split("\n")[0]!,
        );
        expect(init.cwd).not.toBe(tmp);
        expect(init.memory_paths.auto).toMatch(`/projects/${claudeProjectKey(tmp)}/memory/`);
      }
    },
    320_000,
  );
});
