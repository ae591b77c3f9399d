import {
  countFunctionResponses,
  type GeminiScriptFunction,
  geminiFunctionCall,
  geminiReply,
  lastFunctionResponse,
} from "@evals/vcr";

/**
 * The Gemini model behind the recordings, one script per case: what it answers at each step
 * (counted by the function responses it has seen), in Gemini CLI's own tool dialect
 * (`read_file {file_path}`, `replace {file_path, old_string, new_string}`, `run_shell_command
 * {command}`), with paths relative to the working directory so a replay in another fixture copy
 * sends the same calls. Recording runs the real gemini CLI against it; replaying needs only the
 * recordings.
 */
export const agents: Record<string, GeminiScriptFunction> = {
  "gemini-reports-config": (request) =>
    countFunctionResponses(request) === 0
      ? geminiReply("Reading the config.", geminiFunctionCall("read_file", { file_path: "src/config.txt" }))
      : geminiReply(`The config says: ${settingsIn(lastFunctionResponse(request)?.text ?? "")}.`),

  "gemini-raises-timeout": (request) => {
    switch (countFunctionResponses(request)) {
      case 0:
        return geminiReply(geminiFunctionCall("read_file", { file_path: "src/config.txt" }));
      case 1:
        return geminiReply(
          geminiFunctionCall("replace", {
            file_path: "src/config.txt",
            old_string: "timeout_ms = 5000",
            new_string: "timeout_ms = 10000",
            instruction: "Raise the timeout to 10000 ms.",
          }),
        );
      case 2:
        return geminiReply(
          geminiFunctionCall("run_shell_command", { command: "grep -n timeout src/config.txt" }),
        );
      default:
        return geminiReply(
          `Raised the timeout: ${lastFunctionResponse(request)?.text.includes("10000") ? "timeout_ms = 10000" : "?"}.`,
        );
    }
  },

  "gemini-deletes-notes": (request) => {
    switch (countFunctionResponses(request)) {
      case 0:
        // Checks for a changelog that is not there (exit code 1: Gemini's stream still says success).
        return geminiReply(geminiFunctionCall("run_shell_command", { command: "test -f CHANGELOG.md" }));
      case 1:
        return geminiReply(geminiFunctionCall("run_shell_command", { command: "rm src/notes.md" }));
      default:
        return geminiReply("Deleted src/notes.md.");
    }
  },
};

/** "retries = 3, timeout_ms = 5000" from the file's text. */
function settingsIn(output: string): string {
  return [...output.matchAll(/^(\w+ = \w+)$/gm)].map((match) => match[1]).join(", ");
}
