import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { eventsOfType } from "@evals/core";
import { EVENTS_FILE, readEvents } from "@evals/hooks";
import { withModel } from "@evals/test-kit/models";
import { countToolResults, isSubagentRequest, reply, type ScriptFunction, text, toolUse } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent, skipIfNoClaude } from "../src/index.js";

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
