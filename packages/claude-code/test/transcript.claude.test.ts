import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { eventsOfType } from "@evals/core";
import { EVENTS_FILE, readEvents } from "@evals/hooks";
import { withModel } from "@evals/test-kit/models";
import { countToolResults, isSubagentRequest, reply, type ScriptFunction, text, toolUse } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { findTranscript, runAgent, skipIfNoClaude } from "../src/index.js";

/*
 * runAgent registers no UserPromptSubmit or InstructionsLoaded hook (each firing costs the CLI a
 * request): it reads the prompts and the instruction files the CLI loaded from the session's
 * transcript. These runs check that the Run still has them, as the hooks gave them.
 */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "claude-code-transcript-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The hook events the run's settings register (runAgent writes them to its --settings file). */
function registeredEvents(command: string[]): string[] {
  const file = command[command.indexOf("--settings") + 1]!;
  return Object.keys((JSON.parse(readFileSync(file, "utf8")) as { hooks?: object }).hooks ?? {});
}

describe("runAgent reads the prompts and instruction files from the session transcript (real claude CLI)", () => {
  /*
   * Where claude 2.1.330 writes the transcript for a CLAUDE_CONFIG_DIR (or HOME) of the caller's env,
   * as observed: the value as given, relative to the run's cwd; no `~` expansion (a folder named `~`);
   * an empty value is the cwd itself; unset, $HOME/.claude. (HOME unset too is the real user's home:
   * not run here, it would write there.)
   */
  const configDirs: Array<{
    name: string;
    env: (project: string) => Record<string, string | undefined>;
    dir: (project: string, sandbox: string) => string;
  }> = [
    {
      name: "an absolute dir",
      env: (project) => ({ CLAUDE_CONFIG_DIR: `${project}-config` }),
      dir: (project) => `${project}-config`,
    },
    {
      name: "a relative dir (to the run's cwd)",
      env: () => ({ CLAUDE_CONFIG_DIR: "own/../config" }),
      dir: (project) => join(project, "config"),
    },
    {
      name: "`~` (not expanded)",
      env: () => ({ CLAUDE_CONFIG_DIR: "~" }),
      dir: (project) => join(project, "~"),
    },
    { name: "an empty value (the cwd)", env: () => ({ CLAUDE_CONFIG_DIR: "" }), dir: (project) => project },
    {
      name: "none: $HOME/.claude",
      env: () => ({ CLAUDE_CONFIG_DIR: undefined }),
      dir: (_, sandbox) => join(sandbox, "home", ".claude"),
    },
    {
      name: "none, with the caller's HOME",
      env: (project) => ({ CLAUDE_CONFIG_DIR: undefined, HOME: `${project}-home` }),
      dir: (project) => join(`${project}-home`, ".claude"),
    },
  ];
  configDirs.forEach(({ name, env, dir }, index) => {
    it(`finds the transcript in the config dir the caller's env gives the CLI: ${name}`, async (ctx) => {
      skipIfNoClaude(ctx, { claudeBin });
      const project = join(root, `own-config-${index}`);
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, "CLAUDE.md"), "# Own config rules\n");
      const result = await withModel(
        () => reply(text("done")),
        (server) =>
          runAgent({
            prompt: "say done",
            claudeBin,
            cwd: project,
            baseUrl: server.url,
            outputRoot: join(root, "out"),
            settingSources: ["project"],
            env: env(project),
            keepSandbox: "always",
          }),
      );
      const sandbox = result.sandbox_dir!;
      onTestFinished(() => rmSync(sandbox, { recursive: true, force: true }));
      expect(result.error, result.stderr).toBeUndefined();
      expect(findTranscript(dir(project, sandbox), result.run.session_id!)).toBeDefined();
      expect(result.run.instructions?.map((file) => file.file_path)).toEqual([join(project, "CLAUDE.md")]);
    }, 120_000);
  });

  it("has the CLAUDE.md files, an @-import, a nested CLAUDE.md and a path-glob rule in the Run, with their load reasons, and no hook fired", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const project = join(root, "notes");
    mkdirSync(join(project, "docs"), { recursive: true });
    mkdirSync(join(project, "sub"));
    writeFileSync(join(project, "CLAUDE.md"), "# Project rules\nSee @docs/extra.md\n");
    writeFileSync(join(project, "docs", "extra.md"), "extra imported rules\n");
    writeFileSync(join(project, "sub", "CLAUDE.md"), "nested rules\n");
    writeFileSync(join(project, "sub", "a.txt"), "hello\n");
    writeFileSync(join(project, "CLAUDE.local.md"), "local rules\n");
    mkdirSync(join(project, ".claude", "rules"), { recursive: true });
    writeFileSync(join(project, ".claude", "rules", "sub.md"), '---\npaths:\n  - "sub/**"\n---\nsub rule\n');
    const readNested: ScriptFunction = (request) =>
      countToolResults(request) === 0
        ? reply(toolUse("Read", { file_path: join(project, "sub", "a.txt") }))
        : reply(text("done"));
    const result = await withModel(readNested, (server) =>
      runAgent({
        prompt: "read the nested file",
        claudeBin,
        cwd: project,
        baseUrl: server.url,
        outputRoot: join(root, "out"),
        keepSandbox: "always",
        allowedTools: ["Read"],
        settingSources: ["project", "local"],
      }),
    );
    expect(result.error, result.stderr).toBeUndefined();
    expect(registeredEvents(result.command)).not.toContain("InstructionsLoaded");
    expect(registeredEvents(result.command)).not.toContain("UserPromptSubmit");
    // The CLI ran no hook: the collector wrote nothing.
    expect(() => readFileSync(join(result.output_dir!, EVENTS_FILE))).toThrow(/ENOENT/);
    // As the InstructionsLoaded hook said them (observed on 2.1.330 with the same project; the hooks
    // fire concurrently, so their order varied: the transcript's is the order of loading).
    expect(result.run.instructions).toEqual([
      { file_path: join(project, "CLAUDE.md"), memory_type: "Project", load_reason: "session_start" },
      { file_path: join(project, "docs", "extra.md"), memory_type: "Project", load_reason: "include" },
      { file_path: join(project, "CLAUDE.local.md"), memory_type: "Local", load_reason: "session_start" },
      {
        file_path: join(project, "sub", "CLAUDE.md"),
        memory_type: "Project",
        load_reason: "nested_traversal",
      },
      {
        file_path: join(project, ".claude", "rules", "sub.md"),
        memory_type: "Project",
        load_reason: "path_glob_match",
      },
    ]);
    expect(eventsOfType(result.run, "user_message").map((event) => event.text)).toEqual([
      "read the nested file",
    ]);
    rmSync(result.sandbox_dir!, { recursive: true, force: true });
  });

  it("has a background subagent's <task-notification> prompt in the Run, with no UserPromptSubmit hook", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const project = join(root, "background");
    mkdirSync(project);
    const background: ScriptFunction = (request) => {
      if (isSubagentRequest(request)) {
        return countToolResults(request) === 0
          ? reply(toolUse("Bash", { command: "echo from-child", description: "child echo" }))
          : reply(text("child finished"));
      }
      if (JSON.stringify(request.messages).includes("task-notification"))
        return reply(text("parent saw the child"));
      return countToolResults(request) === 0
        ? reply(
            toolUse("Agent", {
              subagent_type: "general-purpose",
              description: "bg",
              prompt: "SUBTASK: echo",
            }),
          )
        : reply(text("parent waiting for the child"));
    };
    const result = await withModel(background, (server) =>
      runAgent({
        prompt: "delegate in the background",
        claudeBin,
        cwd: project,
        baseUrl: server.url,
        outputRoot: join(root, "out"),
        allowedTools: ["Bash", "Agent"],
      }),
    );
    expect(result.error, result.stderr).toBeUndefined();
    expect(registeredEvents(result.command)).not.toContain("UserPromptSubmit");
    const captured = await readEvents(result.output_dir!);
    expect(captured.map((line) => line.event.hook_event_name)).toEqual([
      "PreToolUse",
      "SubagentStart",
      "PostToolUse",
      "SubagentStop",
    ]);
    const child = result.run.agents.find((agent) => agent.id !== "main")!;
    const prompts = eventsOfType(result.run, "user_message");
    expect(prompts.map((event) => [event.agent, event.text.split("\n")[0]])).toEqual([
      ["main", "delegate in the background"],
      [child.id, "<task-notification>"],
    ]);
    expect(prompts[1]!.text).toContain(`<task-id>${child.id}</task-id>`);
    expect(prompts[1]!.text).toContain("<result>child finished</result>");
    // The notification comes after the child stopped, before the parent's answer to it.
    const order = result.run.events.map((event) => event.type);
    expect(order.lastIndexOf("user_message")).toBeGreaterThan(order.indexOf("subagent_stop"));
    expect(eventsOfType(result.run, "final_result")).toHaveLength(2);
    expect(result.run.notes).toEqual([]);
  });
});
