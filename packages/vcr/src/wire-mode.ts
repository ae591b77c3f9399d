import { existsSync } from "node:fs";
import { relative } from "node:path";
import type { RedactOptions } from "@evals/core";
import { missingError } from "./cassette.js";
import { type CassetteIdentity, cassettePath, identityMetadata, identityMismatch } from "./cassette-file.js";
import { type ModelServer, startModelServer } from "./model-server.js";
import { modePlan, resolveVcrMode, type VcrMode } from "./modes.js";
import { passthrough, type RecordingSource, recording } from "./record-source.js";
import { type Recording, readRecording } from "./recording.js";
import type { Divergence, ReplaySource } from "./replay-source.js";
import { type ReplayOptions, replaying } from "./replay-source.js";
import { isModelPath, type ModelApi, type ModelSource } from "./wire.js";

/** Where a case's wire recording lives: `<dir>/<suite>/<case-id>.<hash>.recording.json`. */
export function recordingPath(identity: CassetteIdentity & { dir?: string }): string {
  return cassettePath(identity, "recording.json");
}

/** A case's recording as found on disk: usable, absent, or there but not usable (and why). */
export interface FoundRecording {
  file: string;
  /** The recording, when it is this case's and holds answers. */
  recording?: Recording;
  /** Why the file that is there must not be replayed for this case. */
  problem?: string;
}

/**
 * Looks for a case's recording: its file must say it is this case's (suite, case id, prompt and
 * options, whatever its name) and hold at least one answer of the model. Anything else is reported
 * as a problem, to be recorded anew (auto, record) or to fail with (strict), never replayed.
 */
export function findRecording(identity: CassetteIdentity & { dir?: string }): FoundRecording {
  const file = recordingPath(identity);
  if (!existsSync(file)) return { file };
  const recording = readRecording(file);
  const mismatch = identityMismatch(recording.metadata, identity);
  if (mismatch) return { file, problem: `it is not this case's recording: ${mismatch}` };
  const answers = recording.interactions.filter(
    (interaction) => isModelPath(interaction.request.path) && interaction.response.status === 200,
  );
  if (answers.length === 0) {
    return {
      file,
      problem: `it holds no answer of the model (${recording.interactions.length} interactions): the run it was recorded from failed`,
    };
  }
  return { file, recording };
}

export interface WireSourceOptions extends CassetteIdentity {
  /** record | replay | auto | strict | off; defaults to VCR_MODE, else strict on CI, else auto. */
  mode?: VcrMode;
  /** The recordings folder (default `cassettes`). */
  dir?: string;
  /**
   * The API the CLI speaks (default "anthropic-messages"): the real API live requests go to, and the
   * env var of its key (see apiKeyEnv).
   */
  modelApi?: ModelApi;
  /** Where live requests go: the real API of `modelApi` by default (needs its key), or a loopback server. */
  upstream?: string;
  /** The API key for the upstream (default: the env var of `modelApi`'s key). The CLI itself gets a dummy key. */
  apiKey?: string;
  redact?: RedactOptions;
  /** How replayed requests are matched (extra rewrites, ignored fields, path rewriting). */
  replay?: Omit<ReplayOptions, "redact">;
}

export interface WireSource {
  source: ModelSource;
  mode: VcrMode;
  /** replay: answered from the file; record: live and written on close; live: forwarded only. */
  action: "replay" | "record" | "live";
  file: string;
}

/**
 * The model source for one case at the wire level, by mode: a replay of its recording, a recording
 * proxy in front of the upstream, or a plain passthrough. Start a model server with `.source` and
 * point the real CLI at it; closing the server writes a new recording.
 */
export function wireSource(options: WireSourceOptions): WireSource {
  const mode = resolveVcrMode(options.mode);
  const found: FoundRecording = mode === "off" ? { file: recordingPath(options) } : findRecording(options);
  const { file } = found;
  const plan = modePlan(mode, found.recording !== undefined);
  if (plan === "missing") throw missingError(file, options, "wire recording", found.problem);
  const forward = {
    ...(options.modelApi ? { modelApi: options.modelApi } : {}),
    ...(options.upstream ? { upstream: options.upstream } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
  };
  if (plan === "replay") {
    const source = replaying(found.recording!, {
      ...options.replay,
      ...(options.redact ? { redact: options.redact } : {}),
      label: relative(process.cwd(), file) || file,
    });
    return { source, mode, action: "replay", file };
  }
  if (plan === "record") {
    const source = recording({
      ...forward,
      file,
      ...(options.redact ? { redact: options.redact } : {}),
      metadata: identityMetadata(options),
    });
    return { source, mode, action: "record", file };
  }
  return { source: passthrough(forward), mode, action: "live", file };
}

/** What a run through `wireCassette` did with the recording. */
export interface WireCassetteOutcome<R> {
  /** What `run` returned; on a replay, an AgentRunResult's `origin` is "replay" (see asReplayed). */
  result: R;
  mode: VcrMode;
  action: WireSource["action"];
  file: string;
  /** Replay only: requests that matched no recording. */
  divergences: Divergence[];
  /** Replay only: recorded Messages interactions the run never asked for. */
  unplayed: number[];
  /** Replay only: what was replayed, where it diverged, what was left. */
  report?: string;
}

/** A replay that left its recording: the run's outcome is attached. */
export class ReplayDivergenceError<R = unknown> extends Error {
  readonly outcome: WireCassetteOutcome<R>;
  constructor(outcome: WireCassetteOutcome<R>) {
    super(outcome.report ?? "the replay diverged from its recording");
    this.name = "ReplayDivergenceError";
    this.outcome = outcome;
  }
}

export interface WireCassetteOptions extends WireSourceOptions {
  /**
   * Throw a ReplayDivergenceError when a replay diverged or left recorded requests unplayed
   * (default true for divergences; `"incomplete"` also fails on unplayed requests).
   */
  failOnDivergence?: boolean | "incomplete";
}

/**
 * A run's result marked as replayed: an AgentRunResult (what runAgent returns, `origin: "live"`)
 * answered from a recording gets `origin: "replay"`, so reports neither show its cost as spent nor
 * its model as called. Anything else is returned as it is.
 */
export function asReplayed<R>(result: R): R {
  if (result && typeof result === "object" && (result as { origin?: unknown }).origin === "live") {
    return { ...result, origin: "replay" };
  }
  return result;
}

/**
 * Runs one case through a model server chosen by mode (replay of its recording, recording proxy,
 * or passthrough), closing the server afterwards (which writes a new recording). `run` gets the
 * server: point the real CLI at `server.url` (e.g. `runAgent({ ..., baseUrl: server.url })`).
 * A run that throws while recording leaves no recording behind.
 */
export async function wireCassette<R>(
  options: WireCassetteOptions,
  run: (server: ModelServer) => Promise<R>,
): Promise<WireCassetteOutcome<R>> {
  const chosen = wireSource(options);
  const server = await startModelServer({ source: chosen.source });
  let result: R;
  try {
    result = await run(server);
  } catch (error) {
    (chosen.source as Partial<RecordingSource>).discard?.();
    await server.close();
    throw error;
  }
  await server.close();
  const outcome: WireCassetteOutcome<R> = {
    result: chosen.action === "replay" ? asReplayed(result) : result,
    mode: chosen.mode,
    action: chosen.action,
    file: chosen.file,
    divergences: [],
    unplayed: [],
  };
  if (chosen.action === "replay") {
    const replay = chosen.source as ReplaySource;
    outcome.divergences = [...replay.divergences];
    outcome.unplayed = replay.unplayed();
    outcome.report = replay.report();
    const fail = options.failOnDivergence ?? true;
    if (fail && (outcome.divergences.length > 0 || (fail === "incomplete" && outcome.unplayed.length > 0))) {
      throw new ReplayDivergenceError(outcome);
    }
  }
  return outcome;
}
