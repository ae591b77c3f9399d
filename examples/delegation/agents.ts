import { join } from "node:path";
import {
  countToolResults,
  isSubagentRequest,
  lastToolResult,
  type MessagesRequest,
  reply,
  requestEnvironment,
  type ScriptFunction,
  text,
  toolUse,
} from "@evals/vcr";

/**
 * The agents behind the recordings, one per case. One script answers both the main agent and any
 * subagent it starts (Claude Code marks a subagent's requests), each counting its own steps.
 */

const changelog = (request: MessagesRequest) => join(requestEnvironment(request).cwd ?? ".", "CHANGELOG.md");

/** Read CHANGELOG.md, add the 1.2.0 section, say what was added: the changelog-writer's job. */
function writeEntry(request: MessagesRequest, done: string) {
  switch (countToolResults(request)) {
    case 0:
      return reply(toolUse("Read", { file_path: changelog(request) }));
    case 1:
      return reply(
        toolUse("Edit", {
          file_path: changelog(request),
          old_string: "## 1.1.0",
          new_string: "## 1.2.0\n- Added: dark mode.\n\n## 1.1.0",
        }),
      );
    default:
      return reply(text(done));
  }
}

export const agents: Record<string, ScriptFunction> = {
  "delegates-to-changelog-writer": (request, { headers }) => {
    if (isSubagentRequest(request, headers)) {
      return writeEntry(request, "Added to CHANGELOG.md:\n\n## 1.2.0\n- Added: dark mode.");
    }
    if (countToolResults(request) === 0) {
      return reply(
        text("The project's changelog-writer subagent writes changelog entries; handing it over."),
        toolUse("Agent", {
          subagent_type: "changelog-writer",
          description: "Add the 1.2.0 changelog entry",
          prompt: "Add a 1.2.0 section to CHANGELOG.md: dark mode was added.",
          run_in_background: false,
        }),
      );
    }
    const handBack = lastToolResult(request)?.text ?? "";
    return reply(
      text(
        `Done: the changelog-writer added the 1.2.0 entry.${handBack.includes("dark mode") ? "" : " (It did not confirm the text.)"}`,
      ),
    );
  },

  "does-it-itself": (request) => writeEntry(request, "Added the 1.2.0 entry (dark mode) to CHANGELOG.md."),
};
