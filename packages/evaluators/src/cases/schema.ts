import { SeveritySchema } from "@evals/core";
import { z } from "zod";
import { ExpectedOutcomeSchema } from "../outcome.js";
import { ExpectedTrajectorySchema } from "../trajectory/trajectory-match.js";
import { BehaviorSchema } from "./behavior-schema.js";

// The case schema as a function of the rules a case may name. It knows rules only by the shape below
// (no rule module is imported here), so that rules may depend on the case's types.

/** The case file format's version. A reader accepts the versions it knows. */
export const CASE_VERSION = 1 as const;

/** A duration: milliseconds, or a string with a unit ("90s", "2m", "1500ms", "1h"). */
export const DurationSchema = z
  .union([
    z.number().int().positive(),
    z.string().regex(/^\d+(\.\d+)?\s*(ms|s|m|h)$/, 'a duration such as 30000, "90s", "2m" or "1h"'),
  ])
  .transform((value) => (typeof value === "number" ? value : durationMs(value)));

function durationMs(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/.exec(text) as RegExpExecArray;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as "ms" | "s" | "m" | "h"];
  return Math.round(Number(match[1]) * unit);
}

/**
 * How the harness runs the agent for this case: the options every agent CLI shares at the top (see
 * @evals/core's AgentRunOptions), the chosen runner's own under `options` (validated by that runner's
 * optionsSchema when the harness loads the case). Paths (fixture, and the runner's path options such
 * as Claude Code's settings, mcpConfig, addDirs, pluginDirs, agents) are relative to the case file.
 */
export const AgentOptionsSchema = z
  .object({
    /** Which agent CLI runs the case (a runner registered with the harness): "claude-code" (the default), "opencode", ... */
    cli: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]*$/, "an agent CLI name such as claude-code or opencode")
      .optional(),
    /** The model, as the CLI names it. */
    model: z.string().optional(),
    /** The most model turns. */
    maxTurns: z.number().int().positive().optional(),
    /**
     * The built-in tools the agent HAS (canonical names: `Read`, `Bash`, `Edit`, ...; `[]` for none). A
     * tool left out is not offered at all. A runner whose CLI has no such list refuses it.
     */
    tools: z.array(z.string().min(1)).optional(),
    /**
     * Rules for calls that run without asking: `Read`, `Write`, `Bash(npm test:*)`. They do not restrict
     * the tools the agent has (that is `tools`). Also pre-approve calls for approval-gate.
     */
    allowedTools: z.array(z.string()).optional(),
    /** Rules for calls that are always refused. */
    disallowedTools: z.array(z.string()).optional(),
    /** A folder copied into the run's working directory before it starts (relative to the case file). */
    fixture: z.string().optional(),
    /**
     * true lets `fixture` be a folder outside the case's project (the git checkout the case file is
     * in, else its package, else the folder above the case file's); such a fixture is refused otherwise.
     */
    fixtureOutsideProject: z.boolean().optional(),
    /** Extra environment variables for the agent. */
    env: z.record(z.string(), z.string()).optional(),
    /**
     * The runner's own options (Claude Code's permissionMode, systemPrompt, settings, pluginDirs,
     * mcpConfig, agents ...; OpenCode's agent, autoApprove, permission ...), validated by its optionsSchema.
     */
    options: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** The evaluators that are not rules: how the run ended, the case's behavior, trajectory matching. */
export const CORE_EVALUATOR_IDS = ["outcome", "behavior", "trajectory"] as const;

/** What the case schema needs of a rule: its id, its options schema, its summary and whether it is opt-in. */
export interface CaseSchemaRule {
  readonly id: string;
  readonly summary: string;
  readonly optIn?: boolean;
  readonly options: z.ZodType;
}

/** An evaluator that must (or must not) report a violation. Matched by rule id, never by substring. */
function expectedViolationSchema(evaluatorIds: readonly [string, ...string[]]) {
  return z
    .object({
      /** The evaluator id (approval-gate, read-before-write, trajectory, behavior, ...). */
      rule: z.enum(evaluatorIds),
      /** true (default): it must occur; false: it must not. */
      shouldViolate: z.boolean().default(true),
      /** Only violations of this severity count; absent or "any": every severity counts. */
      severity: z.union([SeveritySchema, z.literal("any")]).optional(),
      /** Only violations of this type count (e.g. "missing-approval"). */
      type: z.string().optional(),
      /** Why the violation is (or is not) expected: shown in reports, not used in the verdict. */
      description: z.string().optional(),
    })
    .strict();
}

type RulesShape<Rules extends readonly CaseSchemaRule[]> = {
  [Rule in Rules[number] as Rule["id"]]: z.ZodOptional<z.ZodUnion<[z.ZodBoolean, Rule["options"]]>>;
};

/**
 * Which rule evaluators run, and their options: `false` turns one off, `true` turns an opt-in one on,
 * an object configures it. One entry per rule, from the rule's own options schema and summary.
 */
function rulesSchema<const Rules extends readonly CaseSchemaRule[]>(rules: Rules) {
  const shape = Object.fromEntries(
    rules.map((rule) => [
      rule.id,
      z
        .union([z.boolean(), rule.options])
        .optional()
        .describe(`${rule.optIn ? "Off unless given (true or options). " : ""}${rule.summary}`),
    ]),
  ) as RulesShape<Rules>;
  return z.object(shape).strict();
}

/**
 * What an LLM judge (@evals/judge) grades the run's final answer by: plain-language criteria. Read by
 * `rubricJudge()`; the rule evaluators ignore it.
 */
export const JudgeSectionSchema = z
  .object({
    rubric: z
      .array(z.string().trim().min(1))
      .min(1)
      .describe("Criteria the final answer must meet, in plain language, one per entry."),
  })
  .strict();

/**
 * The schema of a test case for an agent (what to run, and how to judge the run) whose `rules` and
 * `expectedViolations` may name exactly these rules. A pure function of the rules: a RuleRegistry's
 * case schema is `caseSchemaOf(registry.rules)` (see caseSchemaFor).
 */
export function caseSchemaOf<const Rules extends readonly CaseSchemaRule[]>(rules: Rules) {
  return z
    .object({
      /** Lets editors validate the file (`$schema: ../node_modules/@evals/evaluators/schemas/case.json`). */
      $schema: z.string().optional().describe("The JSON Schema of this file, for editors."),
      version: z
        .literal(CASE_VERSION, {
          error: (issue) =>
            `unsupported case format version ${JSON.stringify(issue.input)}: this @evals/evaluators reads version ${CASE_VERSION}`,
        })
        .default(CASE_VERSION)
        .describe("The case format version (1)."),
      id: z
        .string()
        .regex(
          /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/,
          "letters, digits and . _ : / - (no spaces), starting with a letter or digit",
        )
        .describe("A unique id: letters, digits and . _ : / -"),
      name: z.string().optional().describe("A readable name."),
      description: z.string().optional().describe("What the case checks and why."),
      tags: z.array(z.string()).default([]).describe("Tags to select cases by."),
      /** The prompt (`claude -p`). */
      prompt: z.string().min(1).optional().describe("The prompt (claude -p)."),
      /** Several prompts, sent in turn (a multi-turn case). */
      prompts: z
        .array(z.string().min(1))
        .min(1)
        .optional()
        .describe("Several prompts, sent in turn (multi-turn)."),
      agent: AgentOptionsSchema.default({}).describe(
        "How the agent runs: cli (claude-code, opencode, ...), model, maxTurns, tools (the tools it has), allowedTools (run without asking), disallowedTools, fixture, fixtureOutsideProject, env, and options (the runner's own, e.g. Claude Code's permissionMode, systemPrompt, settings, pluginDirs; OpenCode's agent, autoApprove, permission).",
      ),
      // Optional, not defaulted: a case that says nothing leaves the suite's choice (default success).
      outcome: ExpectedOutcomeSchema.optional().describe(
        "How the run must end: success (default), api_error, max_turns, error, killed, exit_code, no_result, timeout, failure (any but success), any, or a list.",
      ),
      behavior: BehaviorSchema.optional().describe("What the agent must and must not do."),
      expectedTrajectory: ExpectedTrajectorySchema.optional().describe(
        "The tool calls expected: a list, or { mode, argsMode, toolOverrides, fuzzy, agent, calls }.",
      ),
      expectedViolations: z
        .array(expectedViolationSchema([...CORE_EVALUATOR_IDS, ...rules.map((rule) => rule.id)]))
        .default([])
        .describe("Violations that must occur (shouldViolate: true) or must not (false), by rule id."),
      rules: rulesSchema(rules)
        .default({} as never)
        .describe("Rule evaluators to turn off (false) or configure (an options object)."),
      /** How many times the case runs (default 1). */
      trials: z.number().int().positive().default(1).describe("How many times the case runs."),
      /** The score (0..1) each of the case's scorers needs; without one, every scorer must pass. */
      threshold: z
        .number()
        .min(0)
        .max(1)
        .optional()
        .describe("The score (0..1) each scorer needs; without one, every scorer must pass."),
      judge: JudgeSectionSchema.optional().describe(
        "For an LLM judge (@evals/judge): rubric, the criteria the final answer must meet.",
      ),
      /** How long one run may take: milliseconds or "90s", "2m". */
      timeout: DurationSchema.optional().describe('How long one run may take: milliseconds, or "90s", "2m".'),
    })
    .strict()
    .superRefine((value, ctx) => {
      if (value.prompt !== undefined && value.prompts !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["prompts"],
          message: "give either `prompt` or `prompts`, not both",
        });
      }
      value.expectedViolations.forEach((expected, position) => {
        if (expected.rule === "trajectory" && value.expectedTrajectory === undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["expectedViolations", position, "rule"],
            message: "a trajectory violation is expected but the case has no expectedTrajectory",
          });
        }
        if ((value.rules as Record<string, unknown>)[expected.rule] === false) {
          ctx.addIssue({
            code: "custom",
            path: ["expectedViolations", position, "rule"],
            message: `${withArticle(expected.rule)} violation is expected but rules.${expected.rule} is false`,
          });
        }
      });
      const skills = value.behavior?.mustUseSkills ?? value.behavior?.mustNotUseSkills;
      if (skills && (value.rules as Record<string, unknown>)["skill-usage"] === false) {
        ctx.addIssue({
          code: "custom",
          path: ["rules", "skill-usage"],
          message:
            "behavior names skills (mustUseSkills/mustNotUseSkills) but rules.skill-usage, which checks them, is false",
        });
      }
      const { minToolCalls, maxToolCalls } = value.behavior ?? {};
      if (minToolCalls !== undefined && maxToolCalls !== undefined && minToolCalls > maxToolCalls) {
        ctx.addIssue({
          code: "custom",
          path: ["behavior", "maxToolCalls"],
          message: "maxToolCalls is below minToolCalls",
        });
      }
    });
}

/** The case schema of any set of rules. */
export type CaseSchema = ReturnType<typeof caseSchemaOf<readonly CaseSchemaRule[]>>;
/** A parsed case (defaults filled in), whatever rules it was read with. */
export type EvalCase = z.output<CaseSchema>;
/** A case as written in a file or in code. */
export type EvalCaseInput = z.input<CaseSchema>;
export type ExpectedViolation = EvalCase["expectedViolations"][number];
export type AgentOptions = z.output<typeof AgentOptionsSchema>;
/** A case's `rules`: by rule id, false (off), true (on) or the rule's options. */
export type RulesConfig = EvalCase["rules"];

/** "an approval-gate", "a trajectory". */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;
}

/** The prompts of a case, in order. */
export function casePrompts(evalCase: Pick<EvalCase, "prompt" | "prompts">): string[] {
  return evalCase.prompts ?? (evalCase.prompt !== undefined ? [evalCase.prompt] : []);
}
