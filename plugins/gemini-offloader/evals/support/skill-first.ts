import { type Evidence, evaluatorResult, listToolCalls, type Scorer, type Violation } from "@evals/core";
import { SKILL_NAME } from "./scripted-agent.js";

/** A Bash command that runs one of the plugin's scripts, or Gemini itself. */
const PLUGIN_SCRIPT = /\/dist\/(launcher|query|session|memory|status|sync)\.js\b/;
const GEMINI_DIRECTLY = /(^|[;&|(]\s*|\bnpx\s+)gemini(\s|$)/;

export interface SkillFirstOptions {
  /**
   * The case shows an agent that misbehaves: the scorer then passes when it finds the problem (and
   * fails when the run is clean), so a suite shows the verdict both ways.
   */
  expectViolation?: boolean;
}

/**
 * `skill-first`: the agent loads the gemini-offloader skill (the Skill tool) before it runs any
 * Bash command, runs the plugin's scripts only after that, and never calls `gemini` itself (SKILL.md:
 * "never call gemini yourself").
 */
export function skillFirstScorer(options: SkillFirstOptions = {}): Scorer {
  return {
    name: "skill-first",
    score({ run }) {
      const calls = listToolCalls(run, { agent: "main" });
      const skill = calls.find((call) => call.name === "Skill" && call.input.skill === SKILL_NAME);
      const violations: Violation[] = [];
      const evidence: Evidence[] = [];
      const pointer = (call: (typeof calls)[number]) => ({
        event_index: call.index,
        tool_use_id: call.id,
        agent: call.agent,
      });
      if (!skill) {
        violations.push({
          rule: "skill-first",
          type: "skill-not-loaded",
          severity: "error",
          message: `the agent never loaded the ${SKILL_NAME} skill`,
        });
      } else {
        evidence.push({
          type: "skill-loaded",
          description: `Skill ${SKILL_NAME} at call #${skill.position + 1}`,
          pointer: pointer(skill),
        });
      }
      for (const call of calls) {
        if (call.name !== "Bash") continue;
        const command = String(call.input.command ?? "");
        if (GEMINI_DIRECTLY.test(command)) {
          violations.push({
            rule: "skill-first",
            type: "gemini-called-directly",
            severity: "error",
            message: `Bash ${JSON.stringify(command.slice(0, 120))} calls gemini itself instead of the skill's scripts`,
            pointer: pointer(call),
          });
        } else if (!skill || call.position < skill.position) {
          violations.push({
            rule: "skill-first",
            type: "bash-before-skill",
            severity: "error",
            message: `Bash ${JSON.stringify(command.slice(0, 120))} ran before the skill was loaded`,
            pointer: pointer(call),
          });
        } else if (PLUGIN_SCRIPT.test(command)) {
          evidence.push({
            type: "script-after-skill",
            description: `${command.slice(0, 120)}`,
            pointer: pointer(call),
          });
        }
      }
      const found = violations.length > 0;
      if (!options.expectViolation) {
        return evaluatorResult({
          evaluator: "skill-first",
          passed: !found,
          score: found ? 0 : 1,
          violations,
          evidence,
        });
      }
      // A case showing a misbehaving agent: what was found is the expected verdict, kept as info.
      return evaluatorResult({
        evaluator: "skill-first",
        passed: found,
        score: found ? 1 : 0,
        violations: found
          ? violations.map((item) => ({ ...item, severity: "info" as const }))
          : [
              {
                rule: "skill-first",
                type: "expected-violation-missing",
                severity: "error",
                message: "the case expects the agent to skip or bypass the skill, but it loaded it first",
              },
            ],
        evidence,
        metadata: { expectViolation: true },
      });
    },
  };
}
