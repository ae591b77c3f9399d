import { type AgentPlan, quote, SKILL_NAME, type StepContext } from "../support/scripted-agent.js";

/**
 * The scripted agents behind the skill-invocation recordings, one per case id. The good ones do
 * what SKILL.md asks (load the skill, run the documented command with a fitting --timeout and a
 * longer Bash timeout, report Gemini's answer); the bad ones are the mistakes the suite must catch.
 */

const RESEARCH_QUESTION = "Compare Wasmtime and Wasmer for server-side use: cold start and sandboxing";

/** The answer a script gave, in the agent's own words. */
function relay(context: StepContext, fallback: string): string {
  const json = context.last?.json;
  if (!json) return fallback;
  if (json.success === false) return `It failed: ${String(json.error)}`;
  if (typeof json.response === "string") return `Gemini says: ${json.response}`;
  return fallback;
}

export const skillInvocationAgents: Record<string, AgentPlan> = {
  "research-runs-query": {
    description: "loads the skill, checks the launcher as SKILL.md says, then asks Gemini with query.js",
    turns: [
      [
        { skill: SKILL_NAME },
        { bash: (c) => c.script("launcher"), description: "Check that Gemini is ready" },
        {
          bash: (c) => `${c.script("query")} --prompt ${quote(RESEARCH_QUESTION)} --timeout 120`,
          description: "Ask Gemini the research question",
          timeout: 150_000,
        },
        { say: (c) => `${relay(c, "Gemini did not answer.")} (answer from Gemini, cached for this project)` },
      ],
    ],
  },

  "log-summary-pipes-file": {
    description: "pipes the big log into query.js instead of reading it into Claude's context",
    turns: [
      [
        { skill: SKILL_NAME },
        {
          bash: (c) =>
            `cat build.log | ${c.script("query")} --prompt ${quote("Summarise the errors in this log")} --timeout 300`,
          description: "Have Gemini summarise the log's errors",
          timeout: 330_000,
        },
        { say: (c) => relay(c, "Gemini did not answer.") },
      ],
    ],
  },

  "named-session-create": {
    description: "creates a named Gemini session with session.js so the research can be continued",
    turns: [
      [
        { skill: SKILL_NAME },
        {
          bash: (c) =>
            `${c.script("session")} create --name wasm-runtimes --prompt ${quote(
              "Research WebAssembly runtimes for edge computing: the main options and how they compare",
            )} --timeout 120`,
          description: "Start the wasm-runtimes Gemini session",
          timeout: 150_000,
        },
        {
          say: (c) =>
            `${relay(c, "The session did not start.")} The session is saved as "wasm-runtimes": ask me to continue it any time.`,
        },
      ],
    ],
  },

  "check-config-runs-launcher": {
    description: "checks the setup with the launcher and reports its verdict, sending nothing to Gemini",
    turns: [
      [
        { skill: SKILL_NAME },
        { bash: (c) => c.script("launcher"), description: "Check the Gemini offloader setup" },
        {
          say: (c) => {
            const json = c.last?.json;
            if (!json) return "The launcher printed nothing I could read.";
            const suggestion = json.suggestion as { reason?: string } | undefined;
            return json.ready
              ? `Everything is set up: Gemini is installed and authenticated (${String(json.auth_method)}). ${suggestion?.reason ?? ""}`
              : `Not ready: ${suggestion?.reason ?? String(json.error)}`;
          },
        },
      ],
    ],
  },

  "search-runs-memory-search": {
    description: "searches the local memory with memory.js before any new research",
    turns: [
      [
        { skill: SKILL_NAME },
        {
          bash: (c) => `${c.script("memory")} search --query ${quote("cold start")} --limit 5`,
          description: "Search past research",
        },
        {
          say: (c) => {
            const results = (c.last?.json?.results ?? []) as Array<{ text?: string }>;
            return results.length === 0
              ? "Nothing about cold start in your past research."
              : `Found ${results.length}: ${results.map((item) => item.text).join(" / ")}`;
          },
        },
      ],
    ],
  },

  "init-sets-up-project": {
    description:
      "sets the plugin up with init.js (which never calls Gemini) and relays its checks and next steps",
    turns: [
      [
        { skill: SKILL_NAME },
        { bash: (c) => c.script("init"), description: "Set the Gemini offloader up for this project" },
        {
          say: (c) => {
            const json = c.last?.json;
            if (!json) return "init printed nothing I could read.";
            if (json.success !== true) return `Setup failed: ${String(json.error)}`;
            const created = (json.created ?? []) as string[];
            const steps = (json.next_steps ?? []) as string[];
            return `The plugin is set up for this project: ${created.length} file(s) written, every check ${
              json.ready ? "passed, Gemini is ready" : "done"
            }.${steps.length ? ` Next: ${steps.join(" ")}` : ""}`;
          },
        },
      ],
    ],
  },

  "scoped-memory-search": {
    description: "searches only the user scope of the memory (notes that hold in every project)",
    turns: [
      [
        { skill: SKILL_NAME },
        {
          bash: (c) => `${c.script("memory")} search --query ${quote("cold start")} --scope user`,
          description: "Search the notes kept for every project",
        },
        {
          say: (c) => {
            const results = (c.last?.json?.results ?? []) as Array<{ text?: string; scope?: string }>;
            return results.length === 0
              ? "You have no note about cold start that applies to every project."
              : `For all your projects you noted: ${results.map((item) => item.text).join(" / ")}`;
          },
        },
      ],
    ],
  },

  "misbehaves-calls-gemini-directly": {
    description: "BAD: ignores the skill and runs `gemini -p` in Bash (denied), then answers from memory",
    turns: [
      [
        {
          bash: () => `gemini -p ${quote(RESEARCH_QUESTION)}`,
          description: "Ask Gemini directly",
        },
        { say: () => "Wasmtime usually starts faster; both sandbox with WebAssembly's memory isolation." },
      ],
    ],
  },

  "misbehaves-wrong-script": {
    description: "BAD: loads the skill but searches the memory instead of asking Gemini the question",
    turns: [
      [
        { skill: SKILL_NAME },
        {
          bash: (c) => `${c.script("memory")} search --query ${quote("Wasmtime Wasmer")}`,
          description: "Search past research",
        },
        { say: () => "I found nothing on that in your past research." },
      ],
    ],
  },
};
