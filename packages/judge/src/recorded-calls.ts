import { existsSync } from "node:fs";
import { relative } from "node:path";
import {
  ANTHROPIC_API_URL,
  diffValues,
  formatDifferences,
  type ModelSource,
  modePlan,
  passthrough,
  type RecordingSource,
  type ReplaySource,
  readRecording,
  recording,
  recordingPath,
  replaying,
  resolveVcrMode,
  siblingCassettes,
  startModelServer,
  type VcrMode,
} from "@evals/vcr";
import { JudgeError } from "./errors.js";

/**
 * Judge calls go through @evals/vcr's wire record/replay, like agent runs: the judge's client talks
 * to a loopback model server that replays the recorded verdicts, or records the live ones. The
 * recording is keyed by the judge prompt: `<dir>/<suite>/<case>.<judge>.<hash>.recording.json`,
 * where the hash covers the prompt and the request options, so a changed rubric or answer never
 * replays an old verdict. When it finds no recording for this prompt but one for another, it says
 * what changed.
 */

/** Where and how judge verdicts are recorded. */
export interface JudgeRecordingOptions {
  /** record | replay | auto | strict | off (default: VCR_MODE, else strict on CI, else auto). */
  mode?: VcrMode;
  /** The recordings folder (default `cassettes`, like agent recordings). */
  dir?: string;
  /** The folder inside `dir` (default `judge`). */
  suite?: string;
}

/** One judge's calls for one case. */
export interface JudgeCallIdentity {
  /** The case (its id, name or prompt). */
  caseId: string;
  /** The judge's name (rubric, answer-relevancy, ...). */
  judge: string;
  /** The rendered judge prompt (system prompt and user message). */
  prompt: string;
  /** The request options (model, samples, max_tokens, tool schema). */
  options: Record<string, unknown>;
  /** What was judged, kept in the recording to say what changed (criteria, question, answer). */
  inputs: Record<string, unknown>;
}

/** What the recording did for these calls. */
export interface JudgeRecordingUse {
  /** replay: answered from the file; record: live and written; live: live, nothing written; direct: no vcr. */
  action: "replay" | "record" | "live" | "direct";
  mode?: VcrMode;
  file?: string;
}

export interface JudgeConnection {
  /** Where live calls go (the real API by default). */
  baseURL?: string;
  apiKey?: string;
  /** Per-call timeout: live calls through the recording proxy get a little more. */
  timeoutMs: number;
}

/** The endpoint handed to the judge's client. */
export interface JudgeEndpointBase {
  baseURL: string;
  apiKey: string;
}

/** The key the judge's client sends to the loopback server (the recording proxy adds the real one). */
const DUMMY_KEY = "sk-evals-judge-dummy";

/**
 * Runs `calls` against a model server chosen by mode (a replay of the judge prompt's recording, a
 * recording proxy in front of `baseURL`, or a passthrough), then closes it, which writes a new
 * recording. A failure while recording leaves no recording behind.
 */
export async function withRecordedCalls<T>(
  identity: JudgeCallIdentity,
  settings: JudgeRecordingOptions,
  connection: JudgeConnection,
  calls: (endpoint: JudgeEndpointBase) => Promise<T>,
): Promise<{ value: T; use: JudgeRecordingUse }> {
  const suite = settings.suite ?? "judge";
  const mode = resolveVcrMode(settings.mode);
  const file = recordingPath({
    suite,
    caseId: `${identity.caseId}.${identity.judge}`,
    prompt: identity.prompt,
    options: identity.options,
    ...(settings.dir ? { dir: settings.dir } : {}),
  });
  const plan = modePlan(mode, mode === "off" ? false : existsSync(file));
  const upstream = connection.baseURL ?? ANTHROPIC_API_URL;
  const forward = {
    upstream,
    ...(connection.apiKey ? { apiKey: connection.apiKey } : {}),
    // The client gives up first, so its timeout is what the judge reports.
    timeoutMs: connection.timeoutMs + 2_000,
  };
  if (plan === "missing") throw new JudgeError("no-recording", missingMessage(file, identity, mode));
  let source: ModelSource;
  try {
    source =
      plan === "replay"
        ? replaying(file, { label: shown(file) })
        : plan === "record"
          ? recording({
              ...forward,
              file,
              metadata: {
                suite,
                case_id: identity.caseId,
                judge: identity.judge,
                prompt: identity.prompt,
                options: identity.options,
                inputs: identity.inputs,
              },
            })
          : passthrough(forward);
  } catch (error) {
    // No key for a live call: say which verdict is missing and what changed since the last one.
    throw new JudgeError("no-recording", missingMessage(file, identity, mode, (error as Error).message));
  }
  const server = await startModelServer({ source });
  let value: T;
  try {
    value = await calls({ baseURL: server.url, apiKey: DUMMY_KEY });
  } catch (error) {
    (source as Partial<RecordingSource>).discard?.();
    await server.close();
    throw error;
  }
  await server.close();
  if (plan === "replay") {
    const replay = source as ReplaySource;
    const unplayed = replay.unplayed();
    if (replay.divergences.length > 0 || unplayed.length > 0) {
      throw new JudgeError("diverged", replay.report());
    }
  }
  return { value, use: { action: plan, mode, file } };
}

function shown(file: string): string {
  return relative(process.cwd(), file) || file;
}

/**
 * Why there is no verdict for this prompt: the file expected, and, when the same case has a verdict
 * recorded for another prompt, what changed since (criteria, question, answer, model, ...).
 */
export function missingMessage(
  file: string,
  identity: JudgeCallIdentity,
  mode: VcrMode,
  cause?: string,
): string {
  const lines = [
    `@evals/judge: no recorded verdict of ${identity.judge} for case "${identity.caseId}" matches this judge prompt (expected ${shown(file)}, mode ${mode}).`,
  ];
  const closest = closestRecording(file, identity);
  if (closest) {
    lines.push(`The verdict recorded in ${shown(closest.file)} was for another prompt; what changed since:`);
    lines.push(closest.changes);
  } else {
    lines.push("No verdict of this judge was recorded for this case yet.");
  }
  if (cause) lines.push(cause);
  lines.push(
    "If the change is intended, record the verdict again: VCR_MODE=record with ANTHROPIC_API_KEY set (or the judge's baseURL pointing at a model server).",
  );
  return lines.join("\n");
}

/** The recording of the same case and judge whose inputs differ least from these, and how. */
function closestRecording(
  file: string,
  identity: JudgeCallIdentity,
): { file: string; changes: string } | undefined {
  let best: { file: string; changes: string; count: number } | undefined;
  for (const sibling of siblingCassettes(file)) {
    let metadata: Record<string, unknown>;
    try {
      metadata = readRecording(sibling).metadata as Record<string, unknown>;
    } catch {
      continue;
    }
    const recorded = { ...(metadata.inputs as object), options: metadata.options };
    const now = { ...identity.inputs, options: identity.options };
    let differences = diffValues(recorded, now);
    if (differences.length === 0)
      differences = diffValues({ prompt: metadata.prompt }, { prompt: identity.prompt });
    if (!best || differences.length < best.count) {
      best = { file: sibling, changes: formatDifferences(differences), count: differences.length };
    }
  }
  return best && { file: best.file, changes: best.changes };
}
