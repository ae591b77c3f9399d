import {
  type EvaluatorResult,
  evaluatorResult,
  jsonSchemaOf,
  type Scorer,
  type ScorerInput,
  type Violation,
} from "@evals/core";
import { ANTHROPIC_API_URL, slug } from "@evals/vcr";
import type { z } from "zod";
import { type CombineMode, combinedThreshold, combineSamples, type Disagreement } from "./combine.js";
import { JudgeError } from "./errors.js";
import { callJudge, type JudgeRequest } from "./model-call.js";
import { type JudgeRecordingOptions, type JudgeRecordingUse, withRecordedCalls } from "./recorded-calls.js";
import { judgedText, maskCwd } from "./run-text.js";

/**
 * The machinery every built-in judge shares: read the run, build the judge prompt, call the model
 * (through record/replay) once per sample, validate each verdict, combine the samples, and turn the
 * verdict into an @evals/core result whose violations carry the judge's reasoning (so the console,
 * JSON, JUnit and HTML reports show it).
 */

/** The default judge model (EVAL_JUDGE_MODEL overrides it, the `model` option wins). */
export const DEFAULT_JUDGE_MODEL = "claude-sonnet-5-5";

/** Options every built-in judge takes. */
export interface JudgeOptions<Case = unknown> {
  /** The scorer's name (also the recording's name and the violations' rule). */
  name?: string;
  /** The judge model (default: EVAL_JUDGE_MODEL, else claude-sonnet-5-5). */
  model?: string;
  /**
   * Where live judge calls go (default: the Anthropic API). Point it at an @evals/vcr model server
   * (`server.url`) to judge with a scripted model.
   */
  baseURL?: string;
  /** The API key for live calls (default: ANTHROPIC_API_KEY; not needed for a loopback baseURL). */
  apiKey?: string;
  /** Record and replay the judge's calls (default `{}`: mode from VCR_MODE); false calls baseURL directly. */
  recording?: JudgeRecordingOptions | false;
  /** How many times the judge grades each run (default 1). */
  samples?: number;
  /** How samples combine: "mean" (default) or "majority". */
  combine?: CombineMode;
  /** Per call, in ms (default 120000). */
  timeoutMs?: number;
  /** Retries of a failed call (default 2, as the SDK's). */
  maxRetries?: number;
  /** The reply's token limit (default 2048). */
  maxTokens?: number;
  /** The question judged (default: the run's prompts). */
  question?: (input: ScorerInput<Case>) => string | undefined;
  /** The answer judged (default: the run's final text). */
  answer?: (input: ScorerInput<Case>) => string | undefined;
  /** The case's name in recording file names (default: its id, else name, else input, else the question). */
  caseId?: (input: ScorerInput<Case>) => string | undefined;
}

/** What a judge is: its verdict tool and prompt, and how to read a verdict. */
export interface JudgeSpec<Case, Verdict, Inputs extends Record<string, unknown>> {
  name: string;
  /** What one sample needs to pass (0..1). */
  threshold: number;
  system: string;
  tool: { name: string; description: string; schema: z.ZodType<Verdict> };
  /** What is judged (the question, the answer, the criteria...), or a JudgeError "no-input". */
  inputs(input: ScorerInput<Case>, text: { question: string; answer: string }): Inputs;
  /** The user message for these inputs. */
  prompt(inputs: Inputs): string;
  /** Checks a verdict against the inputs (e.g. one entry per criterion); throws a malformed JudgeError. */
  check?(verdict: Verdict, inputs: Inputs): void;
  /** A sample's score (0..1). */
  score(verdict: Verdict, inputs: Inputs): number;
  /** The verdict as violations (the reasoning), given the combined outcome. */
  explain(samples: Verdict[], inputs: Inputs, outcome: { passed: boolean }): Violation[];
}

/** What the judge puts in its result's metadata.judge. */
export interface JudgeMetadata {
  model: string;
  samples: number;
  combine: CombineMode;
  /** The score one sample needed. */
  sample_threshold: number;
  /** How the verdict was obtained (absent when the judge failed before its calls). */
  recording?: JudgeRecordingUse;
  disagreement?: Disagreement;
  /** The validated verdict of every sample (the judge's reasoning, in full). */
  verdicts?: unknown[];
  failure?: { kind: string; message: string };
}

/** Builds a Scorer from a judge spec and the user's options. */
export function judgeScorer<Case, Verdict, Inputs extends Record<string, unknown>>(
  spec: JudgeSpec<Case, Verdict, Inputs>,
  options: JudgeOptions<Case>,
): Scorer<Case> {
  const samples = options.samples ?? 1;
  if (!Number.isInteger(samples) || samples < 1) {
    throw new Error(`${spec.name}: samples must be a whole number of at least 1, got ${samples}`);
  }
  const combine = options.combine ?? "mean";
  const inputSchema = toolSchema(spec.tool.schema);
  return {
    name: spec.name,
    threshold: combinedThreshold(combine, samples, spec.threshold),
    async score(input: ScorerInput<Case>) {
      const model = options.model ?? process.env.EVAL_JUDGE_MODEL ?? DEFAULT_JUDGE_MODEL;
      const metadata: JudgeMetadata = {
        model,
        samples,
        combine,
        sample_threshold: spec.threshold,
        ...(options.recording === false ? { recording: { action: "direct" as const } } : {}),
      };
      const failed = (error: JudgeError) => {
        metadata.failure = { kind: error.kind, message: error.message };
        return evaluatorResult({
          evaluator: spec.name,
          passed: false,
          score: 0,
          violations: [
            {
              rule: spec.name,
              type: `judge-${error.kind}`,
              severity: "error",
              message: `the judge failed (${error.kind}): ${error.message}`,
            },
          ],
          metadata: { judge: metadata },
        });
      };
      let inputs: Inputs;
      try {
        const text = judgedText(input.run);
        const question = options.question?.(input) ?? text.question;
        const answer = options.answer?.(input) ?? text.answer;
        inputs = spec.inputs(input, {
          question: maskCwd(question, input.run.cwd),
          answer: maskCwd(answer, input.run.cwd),
        });
      } catch (error) {
        if (error instanceof JudgeError) return failed(error);
        throw error;
      }
      const request: JudgeRequest = {
        model,
        max_tokens: options.maxTokens ?? 2048,
        system: spec.system,
        prompt: spec.prompt(inputs),
        tool: { name: spec.tool.name, description: spec.tool.description, input_schema: inputSchema },
      };
      const timeoutMs = options.timeoutMs ?? 120_000;
      const maxRetries = options.maxRetries ?? 2;
      const sampleAll = async (endpoint: { baseURL: string; apiKey: string }) => {
        const verdicts: Verdict[] = [];
        // One after another: a replay then answers them in the recorded order.
        for (let sample = 0; sample < samples; sample++) {
          const verdict = await callJudge(request, { ...endpoint, timeoutMs, maxRetries }, spec.tool.schema);
          spec.check?.(verdict, inputs);
          verdicts.push(verdict);
        }
        return verdicts;
      };
      let verdicts: Verdict[];
      try {
        if (options.recording === false) {
          verdicts = await sampleAll({
            baseURL: options.baseURL ?? ANTHROPIC_API_URL,
            apiKey: options.apiKey ?? process.env.ANTHROPIC_API_KEY ?? "",
          });
        } else {
          const { value, use } = await withRecordedCalls(
            {
              caseId: caseIdOf(input, options, inputs),
              judge: spec.name,
              prompt: `${request.system}\n\n${request.prompt}`,
              options: {
                model,
                samples,
                max_tokens: request.max_tokens,
                tool: request.tool,
              },
              inputs,
            },
            options.recording ?? {},
            {
              timeoutMs,
              ...(options.baseURL ? { baseURL: options.baseURL } : {}),
              ...(options.apiKey ? { apiKey: options.apiKey } : {}),
            },
            sampleAll,
          );
          verdicts = value;
          metadata.recording = use;
        }
      } catch (error) {
        if (error instanceof JudgeError) return failed(error);
        throw error;
      }
      const combined = combineSamples(
        verdicts.map((verdict) => ({ score: spec.score(verdict, inputs) })),
        combine,
        spec.threshold,
      );
      metadata.disagreement = combined.disagreement;
      metadata.verdicts = verdicts;
      const violations = spec.explain(verdicts, inputs, combined);
      const { disagreement } = combined;
      if (disagreement.samples > 1 && !disagreement.unanimous) {
        violations.push({
          rule: spec.name,
          type: "samples-disagree",
          severity: disagreement.split ? "warning" : "info",
          message: `the ${disagreement.samples} judge samples disagree: scores ${disagreement.scores.map((s) => s.toFixed(2)).join(", ")} (spread ${disagreement.spread.toFixed(2)}); ${disagreement.passed} of ${disagreement.samples} passed; combined by ${combine}`,
          evidence: disagreement,
        });
      }
      return evaluatorResult({
        evaluator: spec.name,
        passed: combined.passed,
        score: combined.score,
        violations,
        evidence: [
          {
            type: "judge-verdict",
            description: `${spec.name}: ${combined.score.toFixed(2)} (${combined.passed ? "passed" : "failed"}, needed ${combined.threshold.toFixed(2)}) from ${samples} sample${samples === 1 ? "" : "s"} of ${model}`,
            data: { verdicts },
          },
        ],
        metadata: { judge: metadata },
      }) satisfies EvaluatorResult;
    },
  };
}

/** The verdict tool's input schema: the zod schema as JSON Schema, without the $schema line. */
function toolSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = jsonSchemaOf(schema, { io: "output" });
  return rest;
}

function caseIdOf<Case>(
  input: ScorerInput<Case>,
  options: JudgeOptions<Case>,
  inputs: Record<string, unknown>,
): string {
  const given = options.caseId?.(input);
  if (given) return slug(given);
  const fields = input.case as { id?: unknown; name?: unknown; input?: unknown } | undefined;
  for (const value of [fields?.id, fields?.name, fields?.input, inputs.question]) {
    if (typeof value === "string" && value.trim()) return slug(value.slice(0, 60));
  }
  return "case";
}
