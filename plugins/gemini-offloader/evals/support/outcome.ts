import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentRunResult,
  type Evidence,
  evaluatorResult,
  listToolCalls,
  type Run,
  type Scorer,
  type ToolCallView,
  type Violation,
} from "@evals/core";
import {
  type CacheEntry,
  CacheEntrySchema,
  type Memory,
  MemoryStoreFileSchema,
  type SessionMapFile,
  SessionMapFileSchema,
} from "../../src/index.js";
import type { FakeGeminiRequest } from "../../src/testing/index.js";
import type { ScriptName } from "./scripted-agent.js";
import { listFiles, type Workspace } from "./workspace.js";

/**
 * What a run left behind in the plugin's base folder and what Gemini was asked: the outcome the
 * workflow suites check beside the trajectory. Every file is read with the plugin's own schemas.
 */
export interface OffloaderOutcome {
  base: string;
  /** Every file under the base folder, relative to it. */
  files: string[];
  cacheEntries: CacheEntry[];
  /** Named sessions of the project (sessions.json), when there is one. */
  sessions: SessionMapFile | undefined;
  memories: Memory[];
  /** What the fake Gemini API was asked (the model router's calls left out). */
  geminiRequests: Pick<FakeGeminiRequest, "method" | "model" | "prompt" | "texts" | "apiKey">[];
}

/** Reads the outcome of a trial from its workspace. */
export function readOutcome(workspace: Workspace): OffloaderOutcome {
  const files = listFiles(workspace.base);
  const cacheEntries = files
    .filter((file) => /^projects\/[^/]+\/cache\/[^/]+\.json$/.test(file))
    .map((file) => CacheEntrySchema.parse(readJson(join(workspace.base, file))));
  const sessionFiles = files.filter((file) => /^projects\/[^/]+\/sessions\.json$/.test(file));
  const memoryFile = join(workspace.base, "memory", "memories.json");
  return {
    base: workspace.base,
    files,
    cacheEntries,
    sessions: sessionFiles[0]
      ? SessionMapFileSchema.parse(readJson(join(workspace.base, sessionFiles[0])))
      : undefined,
    memories: existsSync(memoryFile) ? MemoryStoreFileSchema.parse(readJson(memoryFile)).memories : [],
    geminiRequests: workspace.gemini.requests
      .filter((request) => !request.jsonSchema && request.method !== "countTokens")
      .map(({ method, model, prompt, texts, apiKey }) => ({ method, model, prompt, texts, apiKey })),
  };
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, "utf8"));
}

/** A run's result with its outcome, as the workflow task returns it. */
export interface OffloaderRunResult extends AgentRunResult {
  outcome: OffloaderOutcome;
}

/** A script run by the agent: its Bash call and the JSON the script printed. */
export interface ScriptCall {
  call: ToolCallView;
  command: string;
  /** The script's JSON output, when it printed one. */
  json: Record<string, unknown> | undefined;
}

/** The agent's Bash calls that ran one of the plugin's scripts, with their output, in order. */
export function scriptCalls(run: Run, script: ScriptName): ScriptCall[] {
  const pattern = new RegExp(`/dist/${script}\\.js\\b`);
  return listToolCalls(run)
    .filter((call) => call.name === "Bash" && pattern.test(String(call.input.command ?? "")))
    .map((call) => ({
      call,
      command: String(call.input.command),
      json: jsonIn(resultText(call)),
    }));
}

/** A tool result as text: a string, Bash's stdout, or the text of its content blocks. */
function resultText(call: ToolCallView): string {
  const result = call.result;
  if (!result) return "";
  const output = result.output;
  const parts: string[] = [];
  if (typeof output === "string") parts.push(output);
  else if (Array.isArray(output)) {
    for (const block of output) {
      const value = (block as { text?: unknown })?.text;
      if (typeof value === "string") parts.push(value);
    }
  } else if (output && typeof output === "object") {
    const { stdout } = output as { stdout?: unknown };
    if (typeof stdout === "string") parts.push(stdout);
  }
  if (parts.length === 0 && result.error) parts.push(result.error);
  return parts.join("\n");
}

function jsonIn(value: string): Record<string, unknown> | undefined {
  const start = value.indexOf("{");
  const end = value.lastIndexOf("}");
  if (start < 0 || end < start) return undefined;
  try {
    return JSON.parse(value.slice(start, end + 1)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** One thing a workflow must have left behind: a description and a check saying what is wrong. */
export interface OutcomeExpectation {
  name: string;
  /** Returns nothing when it holds, else what was found instead. */
  check(outcome: OffloaderOutcome, run: Run): string | undefined;
}

/** `expectation("one cache entry", (o) => o.cacheEntries.length === 1 || \`found ${...}\`)`. */
export function expectation(
  name: string,
  check: (outcome: OffloaderOutcome, run: Run) => true | string,
): OutcomeExpectation {
  return {
    name,
    check(outcome, run) {
      const verdict = check(outcome, run);
      return verdict === true ? undefined : verdict;
    },
  };
}

/**
 * The `outcome` scorer: a case's expectations about the files, the cache, the memory and what
 * Gemini was asked, checked on the run's real workspace. Its score is the share of expectations met.
 */
export function outcomeScorer<Case extends { id: string }>(
  expectations: (evalCase: Case) => OutcomeExpectation[],
): Scorer<Case> {
  return {
    name: "outcome",
    score({ run, result, case: evalCase }) {
      const outcome = (result as Partial<OffloaderRunResult> | undefined)?.outcome;
      if (!outcome || !evalCase) {
        return evaluatorResult({
          evaluator: "outcome",
          passed: false,
          score: 0,
          violations: [
            {
              rule: "outcome",
              type: "no-outcome",
              severity: "error",
              message: "the task returned no workspace outcome to check",
            },
          ],
        });
      }
      const list = expectations(evalCase);
      const violations: Violation[] = [];
      const evidence: Evidence[] = [];
      for (const item of list) {
        let problem: string | undefined;
        try {
          problem = item.check(outcome, run);
        } catch (error) {
          problem = `the check threw: ${(error as Error).message}`;
        }
        if (problem === undefined) evidence.push({ type: "expectation-met", description: item.name });
        else
          violations.push({
            rule: "outcome",
            type: "outcome-mismatch",
            severity: "error",
            message: `${item.name}: ${problem}`,
          });
      }
      return evaluatorResult({
        evaluator: "outcome",
        passed: violations.length === 0,
        score: list.length === 0 ? 1 : (list.length - violations.length) / list.length,
        violations,
        evidence,
        metadata: { files: outcome.files, geminiRequests: outcome.geminiRequests.length },
      });
    },
  };
}
