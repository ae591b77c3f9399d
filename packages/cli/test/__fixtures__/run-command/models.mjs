// The scripted model of `evals record --model`: per case id, what the model answers at each step.
import { countToolResults, lastToolResult, reply, text, toolUse } from "@evals/vcr";

export default {
  "list-notes": (request) =>
    countToolResults(request) === 0
      ? reply(toolUse("Bash", { command: "ls notes", description: "List the notes" }))
      : reply(text(`The notes: ${lastToolResult(request)?.text.trim().split("\n").join(", ")}`)),
};
