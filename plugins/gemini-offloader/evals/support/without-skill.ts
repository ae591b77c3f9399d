import type { SuiteBaseline } from "@evals/harness/vitest";

/**
 * Does the skill help? The skill-invocation suite's baseline: three of its cases (a research
 * question, a named session, a config check) run again with the plugin installed in the workspace
 * but not loaded, and compared with the suite's own runs of them (with the skill), which are not
 * run twice. Not gated: without the skill the scripted agents say they cannot do the task.
 */
export const WITHOUT_SKILL = {
  name: "without-skill",
  cases: ["research-runs-query", "named-session-create", "check-config-runs-launcher"],
  against: "with-skill",
  // The task installs the plugin in every workspace; the baseline runs the agent without loading it.
  runAgent: { options: { pluginDirs: [] } },
} satisfies SuiteBaseline;
