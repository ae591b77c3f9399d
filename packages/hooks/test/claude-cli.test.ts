import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  listToolCalls,
  type ReadRunFolderOptions,
  readRunFolder,
  runFolderPath,
  runFromStreamJson,
} from "@evals/core";
import {
  countToolResults,
  firstUserText,
  isSubagentRequest,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "@evals/vcr";
import { describe, expect, it } from "vitest";
import { readEvents, readHookErrors, readToolCallEntries, writeHookSettings } from "../src/index.js";
import { runClaude, sandbox } from "./claude.js";

/** The run in a run folder, read by @evals/core's readRunFolder (the one reader of run folders). */
const runIn = async (dir: string, options?: ReadRunFolderOptions) => (await readRunFolder(dir, options)).run;

const packageRoot = fileURLToPath(new URL("..", import.meta.url));

describe("the real claude CLI (2.1.330) with the capture hook registered by --settings", () => {
  it("captures what the scripted model asked for: Bash, Read, a failing Read, a denied Write, a subagent", async () => {
    const box = sandbox();
    writeFileSync(join(box.project, "a.txt"), "alpha\n");
    const missing = join(box.project, "missing.txt");
    const denied = join(box.project, "out.txt");
    const server = await startModelServer({
      source: scripted((request, context) => {
        if (isSubagentRequest(request, context.headers)) {
          return countToolResults(request) === 0
            ? reply(toolUse("Bash", { command: "echo from-child", description: "child echo" }))
            : reply(text(`child done: ${firstUserText(request).slice(0, 20)}`));
        }
        switch (countToolResults(request)) {
          case 0:
            return reply(
              text("Step 1."),
              toolUse("Bash", { command: "echo hooks-bash", description: "echo" }),
            );
          case 1:
            return reply(toolUse("Read", { file_path: join(box.project, "a.txt") }));
          case 2:
            return reply(toolUse("Read", { file_path: missing }));
          case 3:
            return reply(toolUse("Write", { file_path: denied, content: "never written\n" }));
          case 4:
            return reply(
              toolUse("Agent", {
                subagent_type: "general-purpose",
                description: "child task",
                prompt: "SUBTASK-MARKER: run echo from-child",
                run_in_background: false,
              }),
            );
          default:
            return reply(text("All steps done."));
        }
      }),
    });
    try {
      const root = join(box.home, "output");
      const settings = writeHookSettings(join(box.home, "settings", "hooks.json"));
      const result = await runClaude(box, {
        prompt: "do the steps",
        args: ["--settings", settings],
        env: { ...server.env(), TEST_MODE: "true", TEST_RUN_ID: "real-cli", EVALS_OUTPUT_DIR: root },
      });
      expect(result.exitCode, result.stderr).toBe(0);
      const final = result.lines.find((line) => line.type === "result");
      expect(final).toMatchObject({ is_error: false, result: "All steps done." });
      expect(existsSync(denied)).toBe(false);

      const runDir = runFolderPath("real-cli", root);
      expect(await readHookErrors(runDir)).toEqual([]);
      const events = await readEvents(runDir);
      const names = new Set(events.map((line) => line.event.hook_event_name));
      // The default events: what the readers use (SessionStart and SessionEnd only on request).
      for (const name of [
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "SubagentStart",
        "SubagentStop",
        "MessageDisplay",
        "Stop",
      ]) {
        expect(names, name).toContain(name);
      }
      expect(names).not.toContain("SessionStart");
      expect(events.every((line) => line.run_id === "real-cli")).toBe(true);

      const run = await runIn(runDir);
      const child = run.agents.find((agent) => agent.id !== "main");
      expect(child).toMatchObject({ type: "general-purpose", parent: "main" });
      const subagentStart = events.find((line) => line.event.hook_event_name === "SubagentStart");
      expect(child?.id).toBe(subagentStart?.event.agent_id);

      const calls = listToolCalls(run);
      expect(calls.map((call) => [call.agent, call.name, call.status])).toEqual([
        ["main", "Bash", "ok"],
        ["main", "Read", "ok"],
        ["main", "Read", "error"],
        ["main", "Write", "denied"],
        ["main", "Agent", "ok"],
        [child?.id, "Bash", "ok"],
      ]);
      expect(calls[0]?.input).toMatchObject({ command: "echo hooks-bash" });
      expect(calls[0]?.result?.output).toMatchObject({ stdout: "hooks-bash" });
      expect(calls[1]?.input).toMatchObject({ file_path: join(box.project, "a.txt") });
      expect(calls[2]?.input).toMatchObject({ file_path: missing });
      expect(calls[2]?.result?.error).toMatch(/does not exist/i);
      expect(calls[3]?.permissionRequested).toBe(true);
      expect(calls[4]?.input).toMatchObject({ prompt: "SUBTASK-MARKER: run echo from-child" });
      expect(child?.parent_tool_use_id).toBe(calls[4]?.id);
      expect(calls[5]?.input).toMatchObject({ command: "echo from-child" });

      // The hooks agree with the CLI's own stream on every call: same ids, names, agents, outcomes.
      const streamed = listToolCalls(runFromStreamJson(result.lines, { prompts: ["do the steps"] }));
      expect(calls.map((call) => [call.id, call.name, call.status])).toEqual(
        streamed.map((call) => [call.id, call.name, call.status]),
      );
      const ids = new Set(server.interactions.flatMap((interaction) => toolUseIds(interaction.response)));
      for (const call of calls) expect(ids).toContain(call.id);

      const entries = await readToolCallEntries(runDir);
      expect(entries.filter((entry) => entry.agent_id === child?.id).map((entry) => entry.tool_name)).toEqual(
        ["Bash", "Bash"],
      );
    } finally {
      await server.close();
      box.cleanup();
    }
  });

  it("stays registered without effect when TEST_MODE is not set", async () => {
    const box = sandbox();
    const server = await startModelServer({
      source: scripted((request) =>
        countToolResults(request) === 0
          ? reply(toolUse("Bash", { command: "echo quiet" }))
          : reply(text("ok")),
      ),
    });
    try {
      const settings = writeHookSettings(join(box.home, "hooks.json"));
      const result = await runClaude(box, {
        prompt: "run",
        args: ["--settings", settings],
        env: { ...server.env(), TEST_RUN_ID: "off", EVALS_OUTPUT_DIR: join(box.home, "output") },
      });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.lines.find((line) => line.type === "result")).toMatchObject({
        is_error: false,
        result: "ok",
      });
      expect(existsSync(join(box.home, "output"))).toBe(false);
      expect(readdirSync(box.project)).toEqual([]);
    } finally {
      await server.close();
      box.cleanup();
    }
  });
});

describe("the real claude CLI with the package loaded as a plugin (--plugin-dir)", () => {
  it("captures through hooks/hooks.json and the plugin root variable", async () => {
    const box = sandbox();
    const server = await startModelServer({
      source: scripted((request) =>
        countToolResults(request) === 0
          ? reply(toolUse("Bash", { command: "echo via-plugin" }))
          : reply(text("plugin ok")),
      ),
    });
    try {
      const root = join(box.home, "output");
      const result = await runClaude(box, {
        prompt: "run",
        args: ["--plugin-dir", packageRoot],
        env: { ...server.env(), TEST_MODE: "true", TEST_RUN_ID: "plugin", EVALS_OUTPUT_DIR: root },
      });
      expect(result.exitCode, result.stderr).toBe(0);
      const run = await runIn(runFolderPath("plugin", root));
      expect(listToolCalls(run).map((call) => [call.name, call.input, call.status])).toEqual([
        ["Bash", { command: "echo via-plugin" }, "ok"],
      ]);
      expect(await readHookErrors(runFolderPath("plugin", root))).toEqual([]);
    } finally {
      await server.close();
      box.cleanup();
    }
  });
});

function toolUseIds(response: unknown): string[] {
  const text = JSON.stringify(response ?? "");
  return [...text.matchAll(/toolu_[A-Za-z0-9_]+/g)].map((match) => match[0]);
}
