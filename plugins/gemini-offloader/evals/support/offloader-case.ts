import { fileURLToPath } from "node:url";
import { casePrompts, type EvalCase } from "@evals/evaluators";
import { type CassetteOption, runCase, type TrialContext } from "@evals/harness";
import type { ScriptFunction } from "@evals/vcr";
import { OFFLOADER_MASKS } from "./masks.js";
import { type OffloaderRunResult, readOutcome } from "./outcome.js";
import { type AgentPlan, scriptedAgent } from "./scripted-agent.js";
import { createWorkspace, type GeminiSetup, type Workspace } from "./workspace.js";

/**
 * The plugin's part of its eval suites, on top of @evals/harness's describeCases: the workspace
 * each trial runs in, the cassette's replay masks, and the scripted agents that stand in for the
 * model when a recording is made. Choosing record or replay, serving the model and turning the
 * case into claude's options is the harness's job (`runCase`, `model`, `cassette`).
 */

/** The recordings of both suites: `cassettes/<suite>/<case id>.<hash>.recording.json`. */
export const OFFLOADER_CASSETTE: CassetteOption = {
  dir: fileURLToPath(new URL("../cassettes", import.meta.url)),
  // What differs between two runs of one scenario in the scripts' output (see masks.ts).
  replay: { replace: OFFLOADER_MASKS },
  // A replay must use the whole recording: an agent that stops early has changed too.
  failOnDivergence: "incomplete",
};

/** How one case's trial is set up beside its `agent:` block. */
export interface OffloaderSetup {
  /** Gemini's side: ready (default), missing, or refusing the key; the fake API's answers. */
  gemini?: GeminiSetup;
  /** Runs before the agent starts, e.g. to leave a cached answer or a session behind. */
  prepare?: (workspace: Workspace) => Promise<void>;
}

/**
 * The task of the plugin's suites: a fresh workspace with the built plugin installed and the fake
 * Gemini API (removed once the scorers are done), the case run there by `runCase`, and what the
 * run left behind (`outcome`) for the outcome scorer.
 */
export async function offloaderTrial(
  trial: TrialContext<EvalCase>,
  setup: OffloaderSetup = {},
): Promise<OffloaderRunResult> {
  const workspace = await createWorkspace(setup.gemini ? { gemini: setup.gemini } : {});
  trial.afterScoring(() => workspace.close());
  await setup.prepare?.(workspace);
  const result = await runCase(trial, trial.case, {
    cwd: workspace.project,
    runAgent: { env: workspace.env, options: { pluginDirs: [workspace.pluginDir] } },
  });
  return { ...result, outcome: readOutcome(workspace) };
}

/**
 * The suite's `model`: each case's scripted agent, which the cassette records when there is no
 * recording (or with VCR_MODE=record) and never calls on a replay. `EVALS_RECORD_LIVE=1` with
 * ANTHROPIC_API_KEY set gives no script, so a recording is made from the real API instead.
 */
export function scriptedAgents(
  plans: Record<string, AgentPlan>,
): (evalCase: EvalCase) => ScriptFunction | undefined {
  return (evalCase) => {
    if (process.env.EVALS_RECORD_LIVE === "1" && process.env.ANTHROPIC_API_KEY) return undefined;
    const plan = plans[evalCase.id];
    if (!plan) throw new Error(`no scripted agent for case ${evalCase.id}`);
    return scriptedAgent(plan, casePrompts(evalCase));
  };
}
