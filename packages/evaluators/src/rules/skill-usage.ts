import { sameTool, type ToolCallView } from "@evals/core";
import { z } from "zod";
import { defineRule } from "../define-rule.js";
import { fraction, pointerTo, RuleOptionsBaseSchema } from "../evaluator.js";
import { outputText } from "../run-index.js";
import { truncate } from "../tools.js";

export const SKILL_USAGE = "skill-usage";

export const SkillUsageOptionsSchema = RuleOptionsBaseSchema.extend({
  /** Skills the agent must load (a Skill call that succeeded); `todo-report` also matches `plugin:todo-report`. */
  mustUse: z.array(z.string().min(1)).optional(),
  /** Skills the agent must not load. */
  mustNotUse: z.array(z.string().min(1)).optional(),
}).strict();

/** A Skill call, and the skill it names. */
interface SkillCall {
  call: ToolCallView;
  skill: string;
}

/**
 * skill-usage: the skills a case expects the agent to load (`behavior.mustUseSkills`, or the rule's
 * `mustUse`) were loaded through the Skill tool, and those it must not load (`mustNotUseSkills`)
 * were not. A skill counts as loaded when its Skill call succeeded. Every diagnostic says which
 * skills were loaded and which were available (the stream's init line lists them), so a name that
 * was not even available reads as such.
 */
export const skillUsageRule = defineRule({
  id: SKILL_USAGE,
  summary:
    "The skills a case names were loaded through the Skill tool (behavior.mustUseSkills), and the forbidden ones were not (mustNotUseSkills).",
  options: SkillUsageOptionsSchema,
  fromCase: (evalCase) => ({
    ...(evalCase.behavior?.mustUseSkills ? { mustUse: evalCase.behavior.mustUseSkills } : {}),
    ...(evalCase.behavior?.mustNotUseSkills ? { mustNotUse: evalCase.behavior.mustNotUseSkills } : {}),
  }),
  visit(options, { index, evidence, violate }) {
    const mustNotUse = options.mustNotUse ?? [];
    let skillCalls = 0;
    // Skill name -> its first Skill call, and its first that succeeded (in the order first made).
    const firstCall = new Map<string, ToolCallView>();
    const firstLoaded = new Map<string, ToolCallView>();
    // The successful Skill calls of forbidden skills: each one is reported.
    const forbiddenLoads: SkillCall[] = [];

    // Whether a tool name is Skill's, worked out once per name rather than once per call.
    const isSkillByName = new Map<string, boolean>();
    const visitCall = (call: ToolCallView): void => {
      let isSkill = isSkillByName.get(call.name);
      if (isSkill === undefined) {
        isSkill = sameTool(call.name, "Skill");
        isSkillByName.set(call.name, isSkill);
      }
      if (!isSkill) return;
      skillCalls++;
      const skill = skillNameOf(call);
      if (!firstCall.has(skill)) firstCall.set(skill, call);
      if (call.status !== "ok") return;
      if (!firstLoaded.has(skill)) firstLoaded.set(skill, call);
      if (mustNotUse.some((forbidden) => skillMatches(skill, forbidden)))
        forbiddenLoads.push({ call, skill });
    };
    /** The first of these calls (in run order) whose skill matches `wanted`. */
    const firstMatching = (calls: Map<string, ToolCallView>, wanted: string): SkillCall | undefined => {
      for (const [skill, call] of calls) if (skillMatches(skill, wanted)) return { call, skill };
      return undefined;
    };

    const end = () => {
      const loadedNames = [...firstLoaded.keys()];
      const available = index.meta.skills;
      const context = `loaded: ${loadedNames.join(", ") || "none"}; available: ${
        available ? available.join(", ") || "none" : "unknown (the run does not list them)"
      }`;
      const facts = { loaded: loadedNames, ...(available ? { available } : {}) };
      let checks = 0;
      let met = 0;

      for (const expected of options.mustUse ?? []) {
        checks++;
        const hit = firstMatching(firstLoaded, expected);
        if (hit) {
          met++;
          evidence.add(() => ({
            type: "skill-loaded",
            description: `skill ${hit.skill} loaded`,
            pointer: pointerTo(hit.call),
          }));
          continue;
        }
        const failed = firstMatching(firstCall, expected);
        const offered = available?.some((name) => skillMatches(name, expected));
        if (failed) {
          const error = truncate(outputText(failed.call.result?.output ?? failed.call.status).trim(), 160);
          violate(
            "skill-load-failed",
            "error",
            `skill ${expected} was expected; its Skill call ${failed.call.status === "denied" ? "was denied" : "failed"}: ${error} (${context})`,
            pointerTo(failed.call),
            { expected, ...facts },
          );
        } else if (available && !offered) {
          violate(
            "skill-not-available",
            "error",
            `skill ${expected} was expected but is not even available to the agent (${context})`,
            undefined,
            { expected, ...facts },
          );
        } else {
          violate(
            "missing-skill",
            "error",
            `skill ${expected} was expected but never loaded (${context})`,
            undefined,
            {
              expected,
              ...facts,
            },
          );
        }
      }

      for (const forbidden of mustNotUse) {
        checks++;
        const hits = forbiddenLoads.filter((item) => skillMatches(item.skill, forbidden));
        if (hits.length === 0) met++;
        for (const hit of hits) {
          violate(
            "forbidden-skill",
            "error",
            `skill ${hit.skill} was loaded, but ${forbidden} must not be (${context})`,
            pointerTo(hit.call),
            { forbidden, ...facts },
          );
        }
      }

      return { score: fraction(met, checks), metadata: { skillCalls, ...facts } };
    };
    return { call: visitCall, end };
  },
});

/** skillUsage as a function: `skillUsageRule.check`. */
export const skillUsage = skillUsageRule.check;

/** The skill a Skill call names (Claude Code's `skill`; OpenCode's `name` is mapped onto it), without a leading "/". */
function skillNameOf(call: ToolCallView): string {
  const name = call.input.skill ?? call.input.name ?? call.input.command;
  return typeof name === "string" ? name.replace(/^\//, "") : "";
}

/** `todo-report` matches `todo-report` and a plugin's `my-plugin:todo-report`; `my-plugin:todo-report` only itself. */
export function skillMatches(name: string, expected: string): boolean {
  const wanted = expected.replace(/^\//, "");
  return name === wanted || (!wanted.includes(":") && name.endsWith(`:${wanted}`));
}
