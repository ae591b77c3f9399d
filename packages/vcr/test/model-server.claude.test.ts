import { listToolCalls, toolSequence } from "@evals/core";
import { describe, expect, it } from "vitest";
import {
  countToolResults,
  firstUserText,
  isSubagentRequest,
  lastToolResult,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "../src/index.js";
import { runClaude } from "./claude.js";

describe("the real claude CLI against a scripted model server", () => {
  it("runs a Bash tool call, then ends with text, and reports a cost", async () => {
    const server = await startModelServer({
      source: scripted((request) =>
        countToolResults(request) === 0
          ? reply(text("Running."), toolUse("Bash", { command: "echo hello-vcr" }))
          : reply(text(`Done: ${lastToolResult(request)!.text}`)),
      ),
    });
    try {
      const result = await runClaude({ prompt: "say hello", env: server.env() });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(listToolCalls(result.run).map((call) => [call.name, call.input, call.status])).toEqual([
        ["Bash", { command: "echo hello-vcr" }, "ok"],
      ]);
      const final = result.lines.find((line) => line.type === "result")!;
      expect(final.result).toBe("Done: hello-vcr");
      expect(final.total_cost_usd).toBeGreaterThan(0);
      expect(server.interactions.map((interaction) => interaction.request.path)).toEqual([
        "/v1/messages?beta=true",
        "/v1/messages?beta=true",
      ]);
    } finally {
      await server.close();
    }
  });

  it("serves a subagent started with the Agent tool, telling its requests apart", async () => {
    const kinds: string[] = [];
    const server = await startModelServer({
      source: scripted((request, context) => {
        const subagent = isSubagentRequest(request);
        kinds.push(`${subagent ? "sub" : "main"}:${isSubagentRequest(request, context.headers)}`);
        if (subagent) {
          return countToolResults(request) === 0
            ? reply(toolUse("Bash", { command: "echo from-child" }))
            : reply(text(`child saw ${lastToolResult(request)!.text} for ${firstUserText(request)}`));
        }
        return countToolResults(request) === 0
          ? reply(
              toolUse("Agent", {
                subagent_type: "general-purpose",
                description: "echo",
                prompt: "SUBTASK: echo",
                run_in_background: false,
              }),
            )
          : reply(text("parent done"));
      }),
    });
    try {
      const result = await runClaude({ prompt: "delegate", env: server.env() });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(kinds).toEqual(["main:false", "sub:true", "sub:true", "main:false"]);
      expect(toolSequence(result.run)).toEqual(["Agent", "Bash"]);
      const child = result.run.agents.find((agent) => agent.id !== "main");
      expect(child?.type).toBe("general-purpose");
      expect(listToolCalls(result.run, { agent: child!.id }).map((call) => call.input)).toEqual([
        { command: "echo from-child" },
      ]);
      const final = result.lines.find((line) => line.type === "result")!;
      expect(final.result).toBe("parent done");
    } finally {
      await server.close();
    }
  });
});
