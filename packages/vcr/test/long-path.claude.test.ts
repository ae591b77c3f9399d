import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeProjectKey, listToolCalls } from "@evals/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  countToolResults,
  lastToolResult,
  type ModelServer,
  type ReplaySource,
  recording,
  replaying,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "../src/index.js";
import { runClaude } from "./claude.js";

/*
 * Claude Code cuts the key of a project folder (`<config dir>/projects/<key>`) at 200 characters
 * and appends a hash of the path. A run recorded in a long folder must replay in another long one
 * (a second clone, a worktree): its requests and the recorded answers name that folder.
 */

const PROMPT = "Look at the project folder.";
/** Nested folders (with "." and "_", which the key escapes) making the cwd over 200 characters. */
const longFolder = (name: string) =>
  join(
    "first.level_folder.with-dots",
    "second_level.folder_name.here",
    "third.level_folder.name_x",
    "fourth_level.folder.name",
    "fifth.level_folder_name.y",
    "sixth_level.folder_name.more",
    `${name}.clone_folder`,
    "project.dir_name",
  );

/** The agent prints its project folder, then the model names that folder in a command of its own. */
function upstreamModel() {
  return scripted((request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(toolUse("Bash", { command: 'echo "$CLAUDE_CONFIG_DIR"/projects/*' }));
      case 1:
        return reply(
          toolUse("Bash", { command: `test -d ${lastToolResult(request)!.text.trim()} && echo found` }),
        );
      default:
        return reply(text("All done."));
    }
  });
}

let dir: string;
let upstream: ModelServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vcr-long-path-"));
  upstream = await startModelServer({ source: upstreamModel() });
});

afterAll(async () => {
  await upstream?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("record in one folder over 200 characters long, replay in another", () => {
  // Without auto memory, the request names the config dir only in such a project folder path.
  it.each([
    ["with auto memory", {}],
    ["without auto memory", { CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1" }],
  ])("%s", async (label, memoryEnv: Record<string, string>) => {
    const file = join(dir, `${label.replaceAll(" ", "-")}.recording.json`);
    const args = ["--allowedTools", "Bash"];
    const recorder = await startModelServer({ source: recording({ upstream: upstream.url, file }) });
    let recordedCwd = "";
    let printed = "";
    try {
      const recorded = await runClaude({
        prompt: PROMPT,
        env: { ...recorder.env(), ...memoryEnv },
        args,
        folder: longFolder("recorded"),
        inspect: (cwd) => (recordedCwd = cwd),
      });
      expect(recorded.exitCode, recorded.stderr).toBe(0);
      printed = JSON.stringify(listToolCalls(recorded.run)[0]?.result?.output);
    } finally {
      await recorder.close();
    }
    // The condition is real: the CLI cut the key and the agent saw it.
    expect(recordedCwd.length).toBeGreaterThan(200);
    expect(printed).toContain(`/projects/${claudeProjectKey(recordedCwd)}`);
    expect(claudeProjectKey(recordedCwd)).not.toBe(recordedCwd.replace(/[^A-Za-z0-9]/g, "-"));

    const server = await startModelServer({ source: replaying(file) });
    try {
      let replayedCwd = "";
      const replayed = await runClaude({
        prompt: PROMPT,
        env: { ...server.env(), ...memoryEnv },
        args,
        folder: longFolder("another"),
        inspect: (cwd) => (replayedCwd = cwd),
      });
      const source = server.source as ReplaySource;
      expect(source.divergences.map((divergence) => divergence.message)).toEqual([]);
      expect(replayed.exitCode, replayed.stderr).toBe(0);
      expect(replayedCwd.length).toBeGreaterThan(200);
      // The recorded command was moved to this run's project folder, which exists.
      const [, probe] = listToolCalls(replayed.run);
      expect(String(probe!.input.command)).toContain(`/projects/${claudeProjectKey(replayedCwd)} `);
      expect(JSON.stringify(probe!.result?.output)).toContain("found");
      expect(source.unplayed()).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
