import { countToolResults, lastToolResult, reply, type ScriptFunction, text, toolUse } from "@evals/vcr";

/**
 * The agents behind the recordings, one per case: what the model answers at each step of the
 * conversation (counted by the tool results it has seen). Recording runs the real claude CLI against
 * them; replaying needs only the recordings.
 */

/** The files a search found, from a Grep or grep result ("Found 2 files\na.js\nb.js" or "a.js\nb.js"). */
function filesIn(result: string): string[] {
  return result
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.endsWith(".js"))
    .map((line) => line.replace(/^\.\//, ""));
}

export const agents: Record<string, ScriptFunction> = {
  /** Loads the skill, follows it, answers with the files it found. */
  "skill-then-grep": (request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(
          text("Let me use the project's TODO skill."),
          toolUse("Skill", { skill: "todo-report" }),
        );
      case 1:
        return reply(
          toolUse("Grep", {
            pattern: "TODO|FIXME",
            glob: "*.js",
            output_mode: "files_with_matches",
          }),
        );
      default:
        return reply(text(filesIn(lastToolResult(request)?.text ?? "").join("\n")));
    }
  },

  /** Goes straight for grep in Bash, skill or not. */
  "grep-in-bash": (request) => {
    if (countToolResults(request) === 0) {
      return reply(toolUse("Bash", { command: 'grep -rlE "TODO|FIXME" src lib', description: "Find TODOs" }));
    }
    return reply(text(filesIn(lastToolResult(request)?.text ?? "").join("\n")));
  },
};
