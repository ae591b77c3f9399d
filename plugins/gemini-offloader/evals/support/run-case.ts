import { existsSync } from "node:fs";
import { casePrompts, type LoadedCase } from "@evals/evaluators";
import type { RunAgentOptions, TrialContext } from "@evals/harness";
import {
  type ModelServer,
  modePlan,
  recordingPath,
  resolveVcrMode,
  scripted,
  startModelServer,
  type VcrMode,
  wireCassette,
} from "@evals/vcr";
import { OFFLOADER_MASKS } from "./masks.js";
import { type OffloaderRunResult, readOutcome } from "./outcome.js";
import { type AgentPlan, scriptedAgent } from "./scripted-agent.js";
import { createWorkspace, type GeminiSetup, type Workspace } from "./workspace.js";

/** How one case of a suite runs. */
export interface CaseRun {
  /** The suite's name: the recordings' folder under `cassettes`. */
  suite: string;
  evalCase: LoadedCase;
  /** The scripted agent that stands in for the model when the case is recorded without an API key. */
  plan: AgentPlan;
  /** The recordings folder. */
  cassettes: string;
  /** Gemini's side: ready (default), missing, or refusing the key; the fake API's answers. */
  gemini?: GeminiSetup;
  /** Runs before the agent starts, e.g. to leave a cached answer or a session behind. */
  prepare?: (workspace: Workspace) => Promise<void>;
  /** The VCR mode (default: VCR_MODE, else strict on CI and auto elsewhere). */
  mode?: VcrMode;
}

/**
 * Records a live session only when asked: `EVALS_RECORD_LIVE=1` with ANTHROPIC_API_KEY set sends
 * the model's side to the real API; otherwise recordings come from the case's scripted agent.
 */
function recordsLive(): boolean {
  return process.env.EVALS_RECORD_LIVE === "1" && Boolean(process.env.ANTHROPIC_API_KEY);
}

/** The options that identify a case's recording (its file name's hash): nothing machine-specific. */
export function recordingKey(evalCase: LoadedCase, gemini: GeminiSetup | undefined): Record<string, unknown> {
  const { allowedTools, disallowedTools, maxTurns, permissionMode, model, appendSystemPrompt } =
    evalCase.agent;
  return {
    plugin: "gemini-offloader",
    gemini: gemini?.state ?? "ready",
    ...(allowedTools ? { allowedTools } : {}),
    ...(disallowedTools ? { disallowedTools } : {}),
    ...(maxTurns ? { maxTurns } : {}),
    ...(permissionMode ? { permissionMode } : {}),
    ...(model ? { model } : {}),
    ...(appendSystemPrompt ? { appendSystemPrompt } : {}),
  };
}

/**
 * Runs one trial of a case: a fresh workspace with the built plugin installed, the real claude CLI
 * (through the trial's runAgent) with its model served from the case's wire recording, or, when
 * the recording is made, from the scripted agent behind the recording proxy. The real scripts and
 * the real Gemini CLI run; Gemini's model is the fake API. Returns the run with what it left behind.
 */
export async function runCase(
  trial: TrialContext<LoadedCase>,
  options: CaseRun,
): Promise<OffloaderRunResult> {
  const { evalCase } = options;
  const prompts = casePrompts(evalCase);
  const workspace = await createWorkspace({
    ...(evalCase.agent.fixture ? { fixture: evalCase.agent.fixture } : {}),
    ...(options.gemini ? { gemini: options.gemini } : {}),
  });
  let scriptedServer: ModelServer | undefined;
  try {
    await options.prepare?.(workspace);
    const identity = {
      suite: options.suite,
      caseId: evalCase.id,
      prompt: prompts.join("\n\n"),
      options: recordingKey(evalCase, options.gemini),
      dir: options.cassettes,
    };
    const mode = resolveVcrMode(options.mode);
    const plan = modePlan(mode, mode === "off" ? false : existsSync(recordingPath(identity)));
    if ((plan === "record" || plan === "live") && !recordsLive()) {
      scriptedServer = await startModelServer({ source: scripted(scriptedAgent(options.plan, prompts)) });
    }
    const agentOptions: RunAgentOptions = {
      prompt: prompts.length === 1 ? prompts[0]! : prompts,
      cwd: workspace.project,
      pluginDirs: [workspace.pluginDir],
      env: { ...workspace.env, ...(evalCase.agent.env ?? {}) },
      ...agentFlags(evalCase),
      ...(evalCase.timeout ? { timeoutMs: evalCase.timeout } : {}),
    };
    const { result } = await wireCassette(
      {
        ...identity,
        mode,
        ...(scriptedServer ? { upstream: scriptedServer.url } : {}),
        replay: { replace: OFFLOADER_MASKS },
        // A replay must use the whole recording: an agent that stops early has changed too.
        failOnDivergence: "incomplete",
      },
      (server) => trial.runAgent({ ...agentOptions, baseUrl: server.url }),
    );
    return { ...result, outcome: readOutcome(workspace) };
  } finally {
    await scriptedServer?.close();
    await workspace.close();
  }
}

/** The case's `agent` options that are claude CLI flags. */
function agentFlags(evalCase: LoadedCase): Partial<RunAgentOptions> {
  const { allowedTools, disallowedTools, maxTurns, permissionMode, model, appendSystemPrompt } =
    evalCase.agent;
  return {
    ...(allowedTools ? { allowedTools } : {}),
    ...(disallowedTools ? { disallowedTools } : {}),
    ...(maxTurns ? { maxTurns } : {}),
    ...(permissionMode ? { permissionMode } : {}),
    ...(model ? { model } : {}),
    ...(appendSystemPrompt ? { appendSystemPrompt } : {}),
  };
}
