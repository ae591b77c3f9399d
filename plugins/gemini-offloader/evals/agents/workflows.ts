import { type AgentPlan, quote, SKILL_NAME, type StepContext } from "../support/scripted-agent.js";

/**
 * The scripted agents behind the workflow recordings, one per case id: a careful agent following
 * SKILL.md through a whole task, across several user turns where the case has several prompts.
 */

export const FASTEST_QUESTION = "Which WebAssembly runtime starts fastest for serverless functions?";
export const SANDBOX_QUESTION = "Which WebAssembly runtime has the strongest sandboxing?";
export const EDGE_QUESTION = "Which WebAssembly runtimes suit edge computing?";
export const COLD_START_FOLLOW_UP = "Go deeper on cold start times";

function json(context: StepContext): Record<string, unknown> {
  return context.last?.json ?? {};
}

/** A script's answer in the agent's words, or its error and the suggestion to act on. */
function relay(context: StepContext): string {
  const output = json(context);
  if (output.success === false) {
    const diagnostic = output.diagnostic as { type?: string; suggestion?: string } | null | undefined;
    return `Gemini failed (${diagnostic?.type ?? "error"}): ${String(output.error)} ${diagnostic?.suggestion ?? ""}`.trim();
  }
  return `Gemini says: ${String(output.response)}`;
}

const query = (question: string) => ({
  bash: (c: StepContext) => `${c.script("query")} --prompt ${quote(question)} --timeout 120`,
  description: "Ask Gemini (cached per project)",
  timeout: 150_000,
});

export const workflowAgents: Record<string, AgentPlan> = {
  "cache-hit-then-memory-search": {
    description:
      "asks, asks the same again (served from the cache), indexes the answer into memory and finds it",
    turns: [
      [{ skill: SKILL_NAME }, query(FASTEST_QUESTION), { say: relay }],
      [
        query(FASTEST_QUESTION),
        {
          say: (c) =>
            json(c).cached === true
              ? `Same answer, from the cache (Gemini was not asked again): ${String(json(c).response)}`
              : relay(c),
        },
      ],
      [
        { bash: (c) => `${c.script("memory")} index-offload`, description: "Store cached answers in memory" },
        {
          bash: (c) => `${c.script("memory")} search --query ${quote("starts fastest")}`,
          description: "Search the memory",
        },
        {
          say: (c) => {
            const results = (json(c).results ?? []) as Array<{ text?: string }>;
            return `Stored, and the search finds it (${results.length} result): ${results[0]?.text ?? "nothing"}`;
          },
        },
      ],
    ],
  },

  "session-create-then-continue": {
    description: "creates a named session, then continues it by name in the next turn",
    turns: [
      [
        { skill: SKILL_NAME },
        {
          bash: (c) =>
            `${c.script("session")} create --name edge-wasm --prompt ${quote(EDGE_QUESTION)} --timeout 120`,
          description: "Start the edge-wasm Gemini session",
          timeout: 150_000,
        },
        { say: (c) => `${relay(c)} (session "edge-wasm" saved)` },
      ],
      [
        {
          bash: (c) =>
            `${c.script("session")} continue --name edge-wasm --prompt ${quote(COLD_START_FOLLOW_UP)} --timeout 120`,
          description: "Continue the edge-wasm session",
          timeout: 150_000,
        },
        { say: (c) => `${relay(c)} (turn ${String(json(c).turn)} of "edge-wasm")` },
      ],
    ],
  },

  "gemini-missing-stops": {
    description: "runs the launcher, sees Gemini is not installed, stops and passes on how to install it",
    turns: [
      [
        { skill: SKILL_NAME },
        { bash: (c) => c.script("launcher"), description: "Check that Gemini is ready" },
        {
          say: (c) => {
            const output = json(c);
            const suggestion = output.suggestion as { reason?: string } | undefined;
            return output.installed === false
              ? `I can't ask Gemini: it is not installed. ${suggestion?.reason ?? String(output.error)}`
              : "Gemini is installed after all.";
          },
        },
      ],
    ],
  },

  "wrong-key-reports-auth": {
    description: "asks, gets an authentication failure (exit 77), and tells the user instead of retrying",
    turns: [
      [
        { skill: SKILL_NAME },
        { bash: (c) => c.script("launcher"), description: "Check that Gemini is ready" },
        query("Which WebAssembly runtime has the smallest memory footprint?"),
        {
          say: (c) =>
            `${relay(c)} Please run \`gemini\` once to sign in, or set a valid GEMINI_API_KEY, and ask me again.`,
        },
      ],
    ],
  },

  "status-query-store-search": {
    description: "checks status, asks Gemini, stores the answer in memory under a topic, and finds it again",
    turns: [
      [
        { skill: SKILL_NAME },
        { bash: (c) => c.script("status"), description: "Check Gemini and the plugin" },
        query(SANDBOX_QUESTION),
        {
          bash: (c) =>
            `${c.script("memory")} add --text ${quote(String(json(c).response))} --topic wasm --source query`,
          description: "Save Gemini's answer in memory",
        },
        {
          bash: (c) => `${c.script("memory")} search --query ${quote("sandboxing")} --topic wasm`,
          description: "Check the answer can be found",
        },
        {
          say: (c) =>
            `Saved under the topic wasm; searching for "sandboxing" finds ${String(json(c).count)} memory: ${String(
              ((json(c).results ?? []) as Array<{ text?: string }>)[0]?.text,
            )}`,
        },
      ],
    ],
  },
};
