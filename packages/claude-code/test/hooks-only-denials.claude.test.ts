import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { listToolCalls, RUN_FOLDER_FILES, readRunFolder } from "@evals/core";
import { evaluate, parseCase } from "@evals/evaluators";
import { type ClaudeSettings, hookSettings } from "@evals/hooks";
import { withModel } from "@evals/test-kit/models";
import { countToolResults, lastToolResult, reply, type ScriptFunction, text, toolUse } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunAgentOptions, runAgent, skipIfNoClaude } from "../src/index.js";

/*
 * A call denied without a permission prompt (the permission mode dontAsk, or another PreToolUse
 * hook's `deny` decision) gets a PreToolUse and then no other tool hook. The stream says it was
 * denied (permission_denials); evals grade on the hook files alone must say so too. The hook files
 * are those of a capture outside the harness (the command hook on every default event, registered
 * in the user's settings, as a plugin would): runAgent's own capture keeps only what the stream lacks.
 */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "harness-hook-denials-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Writes out.txt, then runs `echo DENYME`, then reports. */
const writeThenEcho =
  (dir: string): ScriptFunction =>
  (request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(toolUse("Write", { file_path: `${dir}/out.txt`, content: "x\n" }));
      case 1:
        return reply(toolUse("Bash", { command: "echo DENYME", description: "echo" }));
      default:
        return reply(text(`done: ${lastToolResult(request)?.text.slice(0, 40)}`));
    }
  };

/** A user's PreToolUse hook that denies any call mentioning DENYME (a JSON `deny` decision). */
function denyingHook(dir: string): string {
  const hook = join(dir, "deny.sh");
  writeFileSync(
    hook,
    `#!/bin/sh\ncase "$(cat)" in *DENYME*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no DENYME here"}}';; esac\nexit 0\n`,
    { mode: 0o755 },
  );
  return hook;
}

/** Settings that capture every default event with the command hook, `base`'s hooks kept. */
const captureEverything = (base: ClaudeSettings = {}): Partial<RunAgentOptions> => ({
  capture: false,
  settings: hookSettings({ base }),
});

/** The run folder with only what the capture hook wrote (no stream, no result): a hooks-only run. */
function hooksOnlyCopy(dir: string, name: string): string {
  const copy = join(root, `${name}-hooks-only`);
  mkdirSync(copy);
  copyFileSync(join(dir, RUN_FOLDER_FILES.events), join(copy, RUN_FOLDER_FILES.events));
  return copy;
}

describe("denials without a permission prompt, from the hook files alone (real claude CLI)", () => {
  it.for([
    {
      name: "dontAsk",
      options: (_dir: string): Partial<RunAgentOptions> => ({
        permissionMode: "dontAsk",
        ...captureEverything(),
      }),
      expected: [
        ["Write", "denied"],
        ["Bash", "ok"],
      ],
    },
    {
      name: "hook-deny",
      options: (dir: string): Partial<RunAgentOptions> => ({
        allowedTools: ["Write", "Bash"],
        ...captureEverything({
          hooks: {
            PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: denyingHook(dir) }] }],
          },
        }),
      }),
      expected: [
        ["Write", "ok"],
        ["Bash", "denied"],
      ],
    },
  ])(
    "$name: the hooks-only run says denied, as the harness did",
    async ({ name, options, expected }, ctx) => {
      skipIfNoClaude(ctx, { claudeBin });
      const project = join(root, name);
      mkdirSync(project);
      const result = await withModel(writeThenEcho(project), (server) =>
        runAgent({
          prompt: "write, then echo",
          claudeBin,
          cwd: project,
          baseUrl: server.url,
          outputRoot: join(root, "out"),
          keepSandbox: "never",
          ...options(project),
        }),
      );
      expect(result.error).toBeUndefined();
      const statuses = (run: typeof result.run) => listToolCalls(run).map((call) => [call.name, call.status]);
      expect(statuses(result.run)).toEqual(expected);
      // The stream's denial and the hooks' inference are not doubled in the reconciled run.
      const denials = result.run.events.filter((event) => event.type === "permission_denied");
      expect(denials.length).toBeLessThanOrEqual(1);

      const hooksOnly = hooksOnlyCopy(result.output_dir as string, name);
      const folder = await readRunFolder(hooksOnly);
      expect(folder.source).toBe("captured-events");
      expect(statuses(folder.run)).toEqual(expected);

      // Graded from those hook files alone (what `evals grade` does): the denied call was attempted, not made.
      const [denied] = expected.find(([, status]) => status === "denied") as string[];
      const graded = await evaluate(
        folder.run,
        parseCase({ id: name, expectedTrajectory: ["Write", "Bash"] }),
      );
      expect(graded.passed).toBe(false);
      expect(graded.reasons.join("\n")).toMatch(
        new RegExp(`trajectory: denied-call: expected call #\\d ${denied} was attempted but denied`),
      );
    },
  );
});
