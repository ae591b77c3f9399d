// The scripted model of the variants tests: it follows the house rule when its system prompt has
// one (lists the notes with Bash, then names them); without it, it answers without looking.
import { countToolResults, lastToolResult, reply, systemText, text, toolUse } from "@evals/vcr";

export default (request) => {
  if (!systemText(request).includes("House rule")) return reply(text("There are probably some notes."));
  return countToolResults(request) === 0
    ? reply(toolUse("Bash", { command: "ls notes", description: "List the notes" }))
    : reply(text(`The notes: ${lastToolResult(request)?.text.trim().split("\n").join(", ")}`));
};
