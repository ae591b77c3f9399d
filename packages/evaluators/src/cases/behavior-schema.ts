import { z } from "zod";
import { RuleOptionsBaseSchema } from "../evaluator.js";

// The `behavior` field of a case: only zod schemas here (no rule), so the case schema and the rules'
// declarations can both depend on it.

/** Context files a case expects: each of a list, or any one of `anyOf`. */
export const ExpectedContextFilesSchema = z.union([
  z.array(z.string()),
  z.object({ anyOf: z.array(z.string()).min(1) }).strict(),
]);

const OneOrMany = z.union([z.string(), z.array(z.string())]);

export const ExpectedResponseSchema = z
  .object({
    /** Text the final response must contain (case-insensitive unless caseSensitive). */
    contains: OneOrMany.optional(),
    /** Text the final response must not contain. */
    notContains: OneOrMany.optional(),
    /** `/regex/flags` patterns the final response must match. */
    matches: OneOrMany.optional(),
    caseSensitive: z.boolean().optional(),
    /**
     * Which text is checked: "final" (default), the final response; "all", every text the main agent
     * wrote in the run, all turns, joined by newlines (as OpenAgentsControl checked it).
     */
    scope: z.enum(["final", "all"]).optional(),
  })
  .strict();

/** What a case expects of the agent's behavior (the `behavior` field of a case file). */
export const BehaviorSchema = z
  .object({
    /** Tools that must each be called at least once (`mcp__github__*` wildcards allowed). */
    mustUseTools: z.array(z.string()).optional(),
    /** Groups of tools: at least one tool of each group must be called. A flat list is one group. */
    mustUseAnyOf: z.union([z.array(z.array(z.string()).min(1)), z.array(z.string()).min(1)]).optional(),
    /** When given, the only tools allowed besides mustUseTools and mustUseAnyOf. */
    mayUseTools: z.array(z.string()).optional(),
    /** Tools that must not be called. */
    mustNotUseTools: z.array(z.string()).optional(),
    /** Skills that must be loaded (a Skill call that succeeded): checked by the skill-usage rule. */
    mustUseSkills: z.array(z.string().min(1)).optional(),
    /** Skills that must not be loaded: checked by the skill-usage rule. */
    mustNotUseSkills: z.array(z.string().min(1)).optional(),
    minToolCalls: z.number().int().nonnegative().optional(),
    maxToolCalls: z.number().int().nonnegative().optional(),
    /** The agent must ask for approval (in text, with AskUserQuestion, or a permission request) before acting. */
    requiresApproval: z.boolean().optional(),
    /** Context files must be read before the first write. */
    requiresContext: z.boolean().optional(),
    /**
     * Files that must each be read before the first write, or `{ anyOf: [...] }`: one of them read
     * (enforced by context-loading and here).
     */
    expectedContextFiles: ExpectedContextFilesSchema.optional(),
    /** true: the agent must delegate through Agent/Task; false: it must not. */
    shouldDelegate: z.boolean().optional(),
    expectedResponse: ExpectedResponseSchema.optional(),
    /** Which agent's calls count: "all" (default), "main", or a subagent id or type. */
    agent: z.string().optional(),
  })
  .extend(RuleOptionsBaseSchema.shape)
  .strict();
export type BehaviorExpectations = z.input<typeof BehaviorSchema>;
