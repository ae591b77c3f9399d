import { fileURLToPath } from "node:url";
import { claudeCodeRunner } from "@evals/claude-code";
import { scorersForCase } from "@evals/evaluators";
import { describeCases } from "@evals/harness/vitest";
import { skillInvocationAgents } from "./agents/skill-invocation.js";
import { runCommand } from "./support/commands.js";
import { OFFLOADER_CASSETTE, offloaderTrial, scriptedAgents } from "./support/offloader-case.js";
import { expectation, type OutcomeExpectation, outcomeScorer, scriptCalls } from "./support/outcome.js";
import { skillFirstScorer } from "./support/skill-first.js";
import { WITHOUT_SKILL } from "./support/without-skill.js";
import type { Workspace } from "./support/workspace.js";

/**
 * Layer 2, skill invocation: the real claude CLI with the plugin installed picks the skill and runs
 * the right script with the right arguments. Cases: cases/skill-invocation.yaml. Model: replayed
 * from cassettes/gemini-offloader-skill/. Scripts and Gemini CLI: real, against the fake Gemini API.
 *
 * Does the skill help? Three of the cases also run without the plugin loaded (the baseline,
 * support/without-skill.ts, not gated), and are compared with this suite's runs of them: pass
 * rates with 95% intervals, the difference, the deltas in turns, tool calls, tokens and time,
 * printed after the suite and written to results/variants/gemini-offloader-skill/.
 */

const suite = "gemini-offloader-skill";
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** What the fake Gemini API answers in these cases. */
const GEMINI_ANSWERS = [
  {
    match: "Summarise the errors",
    text: "Three errors: the linker could not find `wasm_runtime_init` in libedge.a (4 times), the build cache ran out of disk quota, and the build failed with exit code 2.",
  },
  {
    match: "Wasmtime",
    text: "Wasmtime cold-starts in about 5 ms and sandboxes with Cranelift-checked bounds; Wasmer is close.",
  },
];

/** Leaves a note in the memory before the agent starts (the search case finds it). */
async function rememberColdStart(workspace: Workspace): Promise<void> {
  await runCommand(workspace, "memory", [
    "add",
    "--text",
    "Wasmtime cold start is about 5 ms",
    "--topic",
    "wasm",
  ]);
}

/** A note for every project (user scope) and one of this project: the scoped search finds the first only. */
async function rememberScopedNotes(workspace: Workspace): Promise<void> {
  await runCommand(workspace, "memory", [
    "add",
    "--text",
    "Across projects: Wasmtime has the shortest cold start",
    "--scope",
    "user",
  ]);
  await runCommand(workspace, "memory", ["add", "--text", "This project's cold start with Wasmer was 40 ms"]);
}

const PREPARE: Record<string, (workspace: Workspace) => Promise<void>> = {
  "search-runs-memory-search": rememberColdStart,
  "scoped-memory-search": rememberScopedNotes,
};

/** Per case: what must be true of the workspace afterwards (beside the trajectory). */
const OUTCOMES: Record<string, OutcomeExpectation[]> = {
  "log-summary-pipes-file": [
    expectation("Gemini got the log as context, not just the prompt", (outcome) => {
      const asked = outcome.geminiRequests.find((request) => request.prompt.includes("Summarise the errors"));
      if (!asked) return `Gemini was asked ${outcome.geminiRequests.length} other question(s)`;
      return (
        asked.prompt.includes("undefined symbol `wasm_runtime_init`") ||
        "the log's lines were not in the request"
      );
    }),
  ],
  "named-session-create": [
    expectation("the session is saved under its name", (outcome) => {
      const session = outcome.sessions?.sessions["wasm-runtimes"];
      return (
        (typeof session === "object" && session.turns === 1) ||
        `sessions.json holds ${JSON.stringify(outcome.sessions?.sessions ?? {})}`
      );
    }),
  ],
  "check-config-runs-launcher": [
    expectation(
      "Gemini was not asked anything",
      (outcome) =>
        outcome.geminiRequests.length === 0 || `${outcome.geminiRequests.length} request(s) reached Gemini`,
    ),
  ],
  "init-sets-up-project": [
    expectation("init wrote the config, the project record and an empty memory", (outcome) => {
      const wanted = ["config.json", "memory/memories.json", "memory/index.json"];
      const missing = wanted.filter((file) => !outcome.files.includes(file));
      const project = outcome.files.some((file) => /^projects\/[^/]+\/project\.json$/.test(file));
      return (
        (missing.length === 0 && project) || `missing: ${[...missing, ...(project ? [] : ["project.json"])]}`
      );
    }),
    expectation(
      "Gemini was not asked anything",
      (outcome) =>
        outcome.geminiRequests.length === 0 || `${outcome.geminiRequests.length} request(s) reached Gemini`,
    ),
  ],
  "scoped-memory-search": [
    expectation("the search found the user-scope note and only it", (_outcome, run) => {
      const search = scriptCalls(run, "memory").find((call) => call.command.includes(" search "));
      const results = (search?.json?.results ?? []) as Array<{ scope?: string; text?: string }>;
      return (
        (results.length === 1 && results[0]!.scope === "user") ||
        `the search printed ${JSON.stringify(search?.json ?? null)}`
      );
    }),
  ],
  "search-runs-memory-search": [
    expectation("the search found the stored note", (_outcome, run) => {
      const search = scriptCalls(run, "memory").find((call) => call.command.includes(" search "));
      return (
        Number(search?.json?.count ?? 0) >= 1 || `the search printed ${JSON.stringify(search?.json ?? null)}`
      );
    }),
  ],
};

describeCases(suite, {
  agent: claudeCodeRunner,
  cases: here("./cases/skill-invocation.yaml"),
  // Each case's scripted agent: what the cassette records; a replay does not call it.
  model: scriptedAgents(skillInvocationAgents),
  cassette: OFFLOADER_CASSETTE,
  // One scorer per evaluator the case runs (its expectedViolations decide the verdicts), the
  // skill-first order check, and what the run left in the workspace.
  scorers: (evalCase) => [
    ...scorersForCase(evalCase),
    skillFirstScorer({ expectViolation: evalCase.tags.includes("skips-skill") }),
    outcomeScorer(() => OUTCOMES[evalCase.id] ?? []),
  ],
  task: (evalCase, trial) => {
    const prepare = PREPARE[evalCase.id];
    return offloaderTrial(trial, { gemini: { rules: GEMINI_ANSWERS }, ...(prepare ? { prepare } : {}) });
  },
  baseline: WITHOUT_SKILL,
  // A case mostly waits on CLIs starting and answering: two run at a time.
  concurrency: 2,
});
