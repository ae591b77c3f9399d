// Scripted models for recording-integrity.claude.test.ts: two cases whose ids slug alike, and one that
// runs a shell command (the command is the test's to tamper with).
import { countToolResults, lastToolResult, reply, text, toolUse } from "@evals/vcr";

export default {
  "team/x": () => reply(text("team slash")),
  "team-x": () => reply(text("team dash")),
  "runs-echo": (request) =>
    countToolResults(request) === 0
      ? reply(toolUse("Bash", { command: "echo hi-from-model", description: "Say hi" }))
      : reply(text(`The command said: ${lastToolResult(request)?.text.trim()}`)),
};
