// The scripted models of the exit-code tests of the `evals` binary, per case id.
import { countToolResults, lastToolResult, lastUserText, reply, text, toolUse } from "@evals/vcr";

const listNotes = (request) =>
  countToolResults(request) === 0
    ? reply(toolUse("Bash", { command: "ls notes", description: "List the notes" }))
    : reply(text(`The notes: ${lastToolResult(request)?.text.trim().split("\n").join(", ")}`));

export default {
  "list-notes": listNotes,
  "list-notes-again": listNotes,
  // Says whether the whole prompt arrived: its first and its last words.
  "big-prompt": (request) => {
    const prompt = lastUserText(request);
    const whole = prompt.includes("FIRST-WORD") && prompt.includes("LAST-WORD");
    return reply(text(whole ? `got the whole prompt (${prompt.length} characters)` : "got part of it"));
  },
};
