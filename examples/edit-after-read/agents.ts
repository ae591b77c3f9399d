import { join } from "node:path";
import {
  countToolResults,
  type MessagesRequest,
  reply,
  requestEnvironment,
  type ScriptFunction,
  text,
  toolUse,
} from "@evals/vcr";

/**
 * The agents behind the recordings, one per case: what the model answers at each step (counted by
 * the tool results it has seen). All of them fix the typo; they differ in how.
 */

/** Claude Code's file tools take absolute paths: the file in this run's project folder. */
const greetFile = (request: MessagesRequest) => join(requestEnvironment(request).cwd ?? ".", "src/greet.js");

// biome-ignore lint/suspicious/noTemplateCurlyInString: the JavaScript source the agent writes.
const fixed = "export function greet(name) {\n  return `Hello, ${name}!`;\n}\n";

export const agents: Record<string, ScriptFunction> = {
  "read-then-edit": (request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(toolUse("Read", { file_path: greetFile(request) }));
      case 1:
        return reply(
          toolUse("Edit", { file_path: greetFile(request), old_string: "Helo", new_string: "Hello" }),
        );
      default:
        return reply(text('Fixed: src/greet.js now says "Hello".'));
    }
  },

  "edit-without-reading": (request) =>
    countToolResults(request) === 0
      ? reply(toolUse("Edit", { file_path: greetFile(request), old_string: "Helo", new_string: "Hello" }))
      : reply(text('Fixed: src/greet.js now says "Hello".')),

  "overwrite-without-reading": (request) =>
    countToolResults(request) === 0
      ? reply(toolUse("Write", { file_path: greetFile(request), content: fixed }))
      : reply(text('Fixed: src/greet.js now says "Hello".')),

  "sed-in-bash": (request) =>
    countToolResults(request) === 0
      ? reply(
          toolUse("Bash", {
            command: "sed -i 's/Helo/Hello/' src/greet.js",
            description: "Fix the typo",
          }),
        )
      : reply(text('Fixed: src/greet.js now says "Hello".')),
};
