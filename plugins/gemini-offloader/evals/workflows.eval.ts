import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeCodeRunner } from "@evals/claude-code";
import { scorersForCase } from "@evals/evaluators";
import { describeCases } from "@evals/harness/vitest";
import {
  COLD_START_FOLLOW_UP,
  EDGE_QUESTION,
  FASTEST_QUESTION,
  SANDBOX_QUESTION,
  workflowAgents,
} from "./agents/workflows.js";
import { OFFLOADER_CASSETTE, offloaderTrial, scriptedAgents } from "./support/offloader-case.js";
import {
  expectation,
  type OffloaderOutcome,
  type OutcomeExpectation,
  outcomeScorer,
  scriptCalls,
} from "./support/outcome.js";
import { skillFirstScorer } from "./support/skill-first.js";
import type { GeminiSetup } from "./support/workspace.js";

/**
 * Layer 3, workflows: whole tasks across turns, checked twice: the trajectory (cases/workflows.yaml)
 * and the outcome, the plugin's files in its base folder and what Gemini was asked (below).
 */

const suite = "gemini-offloader-workflows";
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

const ANSWERS = {
  fastest:
    "Wasmtime starts fastest for serverless functions: about 5 ms to a first call with its pooling allocator.",
  sandbox:
    "Wasmtime has the strongest sandboxing: guard pages, Cranelift-verified bounds checks and fuel limits.",
  edge: "For edge computing: Wasmtime, WasmEdge and Wasmer; WasmEdge is the smallest.",
  coldStart: "Cold starts: WasmEdge about 1 ms with AOT, Wasmtime about 5 ms, Wasmer about 8 ms.",
};

/** Gemini's side of each case: its state, and what the fake Gemini API answers. */
const GEMINI: Record<string, GeminiSetup> = {
  "cache-hit-then-memory-search": { rules: [{ match: FASTEST_QUESTION, text: ANSWERS.fastest }] },
  "session-create-then-continue": {
    rules: [
      { match: COLD_START_FOLLOW_UP, text: ANSWERS.coldStart },
      { match: EDGE_QUESTION, text: ANSWERS.edge },
    ],
  },
  "gemini-missing-stops": { state: "missing" },
  "wrong-key-reports-auth": { state: "wrong-key" },
  "status-query-store-search": { rules: [{ match: SANDBOX_QUESTION, text: ANSWERS.sandbox }] },
};

/** Prompts Gemini was sent (the piped context and the router's calls left out). */
const asked = (outcome: OffloaderOutcome, text: string) =>
  outcome.geminiRequests.filter((request) => request.prompt.includes(text));

const OUTCOMES: Record<string, OutcomeExpectation[]> = {
  "cache-hit-then-memory-search": [
    expectation("Gemini was asked once: the second query was a cache hit", (outcome) => {
      const count = asked(outcome, FASTEST_QUESTION).length;
      return count === 1 || `Gemini was asked ${count} times`;
    }),
    expectation("the second query said cached: true", (_outcome, run) => {
      const [first, second] = scriptCalls(run, "query");
      if (first?.json?.cached !== false)
        return `the first query printed cached: ${String(first?.json?.cached)}`;
      return (
        second?.json?.cached === true || `the second query printed ${JSON.stringify(second?.json ?? null)}`
      );
    }),
    expectation("one cache entry holds the answer", (outcome) => {
      const entries = outcome.cacheEntries;
      if (entries.length !== 1) return `${entries.length} cache entries`;
      const entry = entries[0]!;
      if (entry.prompt !== FASTEST_QUESTION) return `the entry is for ${JSON.stringify(entry.prompt)}`;
      return (
        outcome.files.includes(relative(outcome.base, entry.response_file)) ||
        `its response file ${entry.response_file} is missing`
      );
    }),
    expectation("the memory holds the cached answer, indexed from the cache", (outcome) => {
      const memory = outcome.memories.find((item) => item.text.includes(ANSWERS.fastest));
      if (!memory) return `memories: ${JSON.stringify(outcome.memories.map((item) => item.text))}`;
      return memory.origin === outcome.cacheEntries[0]?.key || `its origin is ${String(memory.origin)}`;
    }),
    expectation("the memory search found it", (_outcome, run) => {
      const search = scriptCalls(run, "memory").find((call) => call.command.includes(" search "));
      const results = (search?.json?.results ?? []) as Array<{ text?: string }>;
      return (
        results.some((item) => item.text?.includes("starts fastest")) ||
        `search printed ${JSON.stringify(search?.json ?? null)}`
      );
    }),
  ],

  "session-create-then-continue": [
    expectation("sessions.json maps edge-wasm to one Gemini session with 2 turns", (outcome) => {
      const session = outcome.sessions?.sessions["edge-wasm"];
      if (typeof session !== "object")
        return `sessions.json holds ${JSON.stringify(outcome.sessions?.sessions ?? {})}`;
      return session.turns === 2 || `${session.turns} turns`;
    }),
    expectation("both turns ran in that session", (outcome, run) => {
      const ids = scriptCalls(run, "session").map(
        (call) => (call.json?.session as { session_id?: string })?.session_id,
      );
      const mapped = outcome.sessions?.sessions["edge-wasm"];
      const expected = typeof mapped === "object" ? mapped.session_id : undefined;
      return (
        (ids.length === 2 && ids.every((id) => id && id === expected)) ||
        `session ids ${JSON.stringify(ids)}, mapped ${expected}`
      );
    }),
    expectation("the follow-up re-sent the first turn to Gemini (it was really continued)", (outcome) => {
      const followUp = asked(outcome, COLD_START_FOLLOW_UP)[0];
      if (!followUp) return "Gemini never got the follow-up";
      return (
        followUp.texts.some((text) => text.includes(EDGE_QUESTION)) ||
        `its history: ${JSON.stringify(followUp.texts)}`
      );
    }),
    expectation("each turn's full answer is kept", (outcome) => {
      const turns = outcome.files.filter((file) => /\/sessions\/[^/]+\/turn-00[12]\.md$/.test(file));
      return turns.length === 2 || `turn files: ${JSON.stringify(turns)}`;
    }),
  ],

  "gemini-missing-stops": [
    expectation("the launcher reported Gemini missing", (_outcome, run) => {
      const launcher = scriptCalls(run, "launcher")[0]?.json;
      return launcher?.installed === false || `the launcher printed ${JSON.stringify(launcher ?? null)}`;
    }),
    expectation(
      "nothing reached Gemini and nothing was cached",
      (outcome) =>
        (outcome.geminiRequests.length === 0 && outcome.cacheEntries.length === 0) ||
        `${outcome.geminiRequests.length} request(s), ${outcome.cacheEntries.length} cache entries`,
    ),
  ],

  "wrong-key-reports-auth": [
    expectation("the query failed as an auth problem (exit 77)", (_outcome, run) => {
      const query = scriptCalls(run, "query")[0];
      const diagnostic = query?.json?.diagnostic as { type?: string } | undefined;
      return (
        (diagnostic?.type === "auth" &&
          /Exit code 77/.test(query?.call.result?.error ?? String(query?.call.result?.output))) ||
        `query printed ${JSON.stringify(query?.json ?? null)}`
      );
    }),
    expectation("Gemini got exactly one attempt, with the wrong key", (outcome) => {
      const attempts = outcome.geminiRequests;
      return (
        (attempts.length === 1 && attempts[0]!.apiKey === "wrong-gemini-key") ||
        `attempts: ${JSON.stringify(attempts.map((item) => item.apiKey))}`
      );
    }),
    expectation(
      "the failure was not cached",
      (outcome) => outcome.cacheEntries.length === 0 || `${outcome.cacheEntries.length} cache entries`,
    ),
  ],

  "status-query-store-search": [
    expectation("status said ready before anything was asked", (_outcome, run) => {
      const status = scriptCalls(run, "status")[0]?.json;
      return status?.ready === true || `status printed ${JSON.stringify(status ?? null)}`;
    }),
    expectation(
      "Gemini was asked once and the answer cached",
      (outcome) =>
        (asked(outcome, SANDBOX_QUESTION).length === 1 && outcome.cacheEntries.length === 1) ||
        `${asked(outcome, SANDBOX_QUESTION).length} request(s), ${outcome.cacheEntries.length} cache entries`,
    ),
    expectation("the memory holds Gemini's answer under the topic wasm", (outcome) => {
      const stored = outcome.memories.filter((item) => item.topic === "wasm");
      return (
        (stored.length === 1 && stored[0]!.text.includes(ANSWERS.sandbox)) ||
        `memories: ${JSON.stringify(outcome.memories.map(({ topic, text }) => ({ topic, text })))}`
      );
    }),
    expectation("the search found it", (_outcome, run) => {
      const search = scriptCalls(run, "memory").find((call) => call.command.includes(" search "));
      return (
        Number(search?.json?.count ?? 0) === 1 || `search printed ${JSON.stringify(search?.json ?? null)}`
      );
    }),
  ],
};

describeCases(suite, {
  agent: claudeCodeRunner,
  cases: here("./cases/workflows.yaml"),
  model: scriptedAgents(workflowAgents),
  cassette: OFFLOADER_CASSETTE,
  scorers: (evalCase) => {
    const outcomes = OUTCOMES[evalCase.id];
    if (!outcomes) throw new Error(`case ${evalCase.id} needs outcome expectations`);
    return [...scorersForCase(evalCase), skillFirstScorer(), outcomeScorer(() => outcomes)];
  },
  task: (evalCase, trial) =>
    offloaderTrial(trial, GEMINI[evalCase.id] ? { gemini: GEMINI[evalCase.id] } : {}),
  concurrency: 2,
});
