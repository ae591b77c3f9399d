import { countToolResults, lastToolResult, reply, type ScriptFunction, text, toolUse } from "@evals/vcr";

/**
 * The model behind the recordings, one script per case: what it answers at each step (counted by
 * the tool results it has seen). It speaks OpenCode's tool names and input shapes (`read {filePath}`,
 * `bash {command, description}`), with paths relative to the working directory so a replay in
 * another fixture copy sends the same calls. Recording runs the real opencode CLI against it;
 * replaying needs only the recordings.
 */
export const agents: Record<string, ScriptFunction> = {
  "reviewer-reports-config": (request) =>
    countToolResults(request) === 0
      ? reply(text("Reading the config."), toolUse("read", { filePath: "src/config.txt" }))
      : reply(text(`The config says: ${settingsIn(lastToolResult(request)?.text ?? "")}.`)),

  "reviewer-lists-then-reads": (request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(toolUse("bash", { command: "ls -R src", description: "List the project's files" }));
      case 1:
        return reply(toolUse("read", { filePath: "src/notes.md" }));
      default: {
        const todo = /TODO: (.+)/.exec(lastToolResult(request)?.text ?? "")?.[1] ?? "none found";
        return reply(text(`Open work in src/notes.md: ${todo}`));
      }
    }
  },

  "reviewer-asked-to-edit": (request) =>
    countToolResults(request) === 0
      ? reply(toolUse("read", { filePath: "src/config.txt" }))
      : reply(
          text(
            "I review and do not edit files. To raise it, change the line `timeout_ms = 5000` in src/config.txt to `timeout_ms = 10000`.",
          ),
        ),

  "reviewer-tries-to-delete": (request) =>
    countToolResults(request) === 0
      ? reply(toolUse("bash", { command: "rm src/notes.md", description: "Delete the notes" }))
      : reply(text("I could not delete src/notes.md: my permissions do not allow rm.")),
};

/** "retries = 3, timeout_ms = 5000" from the read tool's numbered output ("1: retries = 3"). */
function settingsIn(output: string): string {
  return [...output.matchAll(/^\d+: (\w+ = \w+)$/gm)].map((match) => match[1]).join(", ");
}
