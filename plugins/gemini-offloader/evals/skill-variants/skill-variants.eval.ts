import { fileURLToPath } from "node:url";
import { claudeCodeRunner } from "@evals/claude-code";
import { loadCases } from "@evals/evaluators";
import { describeCases } from "@evals/harness/vitest";
import { skillInvocationAgents } from "../agents/skill-invocation.js";
import { OFFLOADER_CASSETTE, offloaderTrial, scriptedAgents } from "../support/offloader-case.js";

/**
 * Does the skill help? Three cases of the skill-invocation suite run twice, with the same trials
 * and the same workspace: without the plugin (the baseline, not gated) and with it. The comparison
 * (pass rates with 95% intervals, the difference with its interval, the deltas in turns, tool calls,
 * tokens and time) is printed after the suite and written to results/variants/<suite>/.
 *
 * Recorded once from the scripted agents, each variant into its own recording
 * (cassettes/<suite>/<case id>.<variant>.<hash>.recording.json); re-record both with
 * `npm run record:skill-variants -w @evals/gemini-offloader-plugin` (see README.md here).
 */

const suite = "gemini-offloader-skill-variants";
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The cases compared: a research question, a named session, a config check. */
export const COMPARED_CASES = ["research-runs-query", "named-session-create", "check-config-runs-launcher"];

/** What the fake Gemini API answers. */
const GEMINI_ANSWERS = [
  {
    match: "Wasmtime",
    text: "Wasmtime cold-starts in about 5 ms and sandboxes with Cranelift-checked bounds; Wasmer is close.",
  },
];

describeCases(suite, {
  agent: claudeCodeRunner,
  cases: () =>
    loadCases(here("../cases/skill-invocation.yaml")).filter((evalCase) =>
      COMPARED_CASES.includes(evalCase.id),
    ),
  variants: [
    // The task installs the plugin in every workspace; this variant runs the agent without loading it.
    { name: "without-skill", runAgent: { options: { pluginDirs: [] } }, mustPass: false },
    { name: "with-skill" },
  ],
  // The same scripted agents for both: they look for the skill in the listing and say so when it is not there.
  model: scriptedAgents(skillInvocationAgents),
  cassette: { ...OFFLOADER_CASSETTE, dir: here("./cassettes") },
  task: (_evalCase, trial) => offloaderTrial(trial, { gemini: { rules: GEMINI_ANSWERS } }),
  concurrency: 2,
});
