// An eval suite as a user writes one: describeEval runs each case through the real `claude` CLI
// (runAgent), against a scripted loopback model so it runs offline, for free and the same every time.
// Run it with `npx nx run @evals/harness:eval`.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeCodeRunner } from "@evals/claude-code";
import { ruleScorer, trajectoryScorer } from "@evals/evaluators";
import {
  countToolResults,
  firstUserText,
  isSubagentRequest,
  lastToolResult,
  type MessagesRequest,
  reply,
  scripted,
  text,
  toolUse,
} from "@evals/vcr";
import { afterAll } from "vitest";
import { describeEval } from "../src/vitest.js";

const fixtureProject = join(__dirname, "project");
const projects = mkdtempSync(join(tmpdir(), "harness-eval-"));
afterAll(() => rmSync(projects, { recursive: true, force: true }));

/** Every trial works on a fresh copy of the fixture project. */
function freshProject(): string {
  const dir = mkdtempSync(join(projects, "project-"));
  cpSync(fixtureProject, dir, { recursive: true });
  return dir;
}

/** The "model": what a well-behaved agent does for each of the prompts below. */
function model(request: MessagesRequest) {
  const prompt = firstUserText(request);
  const step = countToolResults(request);
  if (isSubagentRequest(request)) {
    return step === 0
      ? reply(toolUse("Bash", { command: "grep -c answer index.js", description: "count answers" }))
      : reply(text(`index.js mentions answer ${lastToolResult(request)?.text.trim()} time(s)`));
  }
  if (prompt.includes("List the files")) {
    return step === 0
      ? reply(text("Listing."), toolUse("Bash", { command: "ls", description: "list files" }))
      : reply(text(`Files: ${lastToolResult(request)?.text.replace(/\n/g, ", ")}`));
  }
  if (prompt.includes("release notes")) {
    if (step === 0) return reply(toolUse("Read", { file_path: `${cwdOf(request)}/NOTES.md` }));
    if (step === 1) {
      return reply(
        toolUse("Edit", {
          file_path: `${cwdOf(request)}/NOTES.md`,
          old_string: "- faster start\n",
          new_string: "- faster start\n- smaller install\n",
        }),
      );
    }
    return reply(text("Added the line."));
  }
  if (prompt.includes("Delegate")) {
    return step === 0
      ? reply(
          toolUse("Agent", {
            subagent_type: "general-purpose",
            description: "count answers",
            prompt: "Count how often index.js mentions answer.",
            run_in_background: false,
          }),
        )
      : reply(text("The subagent counted them."));
  }
  return reply(text("I do not know that task."));
}

/** The agent's working directory, from the environment block Claude Code sends the model. */
function cwdOf(request: MessagesRequest): string {
  const match = /Primary working directory: ([^\s\\]+)/.exec(JSON.stringify(request.messages));
  if (!match) throw new Error("the request names no working directory");
  return match[1]!;
}

describeEval("project assistant", {
  data: [
    {
      name: "lists the files with one read-only command",
      input: "List the files in this project.",
      expected: ["Bash"],
    },
    {
      name: "reads the notes before editing them",
      input: "Add 'smaller install' to the release notes.",
      expected: ["Read", "Edit"],
    },
    {
      name: "delegates the counting to a subagent",
      input: "Delegate counting the answers in index.js.",
      expected: ["Agent", "Bash"],
    },
  ],
  task: (prompt, { runAgent, case: evalCase }) =>
    runAgent(
      {
        prompt,
        cwd: freshProject(),
        allowedTools: ["Bash(ls)", "Bash(grep:*)"],
        maxTurns: 6,
        options: { permissionMode: evalCase.expected.includes("Edit") ? "acceptEdits" : "default" },
      },
      claudeCodeRunner,
    ),
  scorers: [
    // Each case's `expected` tools, in this order, nothing else (diagnostics name what differs).
    {
      name: "trajectory",
      threshold: 1,
      score: ({ run, case: evalCase }) =>
        trajectoryScorer({ expected: evalCase!.expected, mode: "strict", engine: "builtin" }).score({ run }),
    },
    ruleScorer("read-before-write"),
    ruleScorer("forbidden-commands"),
  ],
  model: () => scripted(model),
  trials: 2,
  passRule: "all",
  timeout: 90_000,
  concurrency: 2,
  agent: claudeCodeRunner,
  requiresAgent: true,
});
