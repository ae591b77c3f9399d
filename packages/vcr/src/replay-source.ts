import { claudeProjectKey, createRedactor, type RedactOptions } from "@evals/core";
import { type Difference, diffValues, formatDifferences } from "./diff.js";
import { errorBodyFor } from "./error-bodies.js";
import { geminiErrorBody } from "./gemini-api.js";
import { recordingIntegrityProblem } from "./integrity.js";
import {
  canonicalKey,
  claudeVersionOf,
  type NormalizedRequest,
  type NormalizeOptions,
  normalizeRequest,
  requestEnvironment,
  versionNeutral,
} from "./normalize.js";
import { type Recording, readRecording, recordedRequest, recordedResponse } from "./recording.js";
import { estimateTokens } from "./scripted-source.js";
import {
  geminiCallOf,
  isCountTokensPath,
  isModelPath,
  jsonResponse,
  type ModelSource,
  type SourceResponse,
  type WireRequest,
} from "./wire.js";

/**
 * Answers from a recording. Each request is matched by its normalized form (see normalize.ts), not
 * by position, so requests of concurrent subagents may arrive in any order. A request that matches
 * nothing gets an API error naming the closest recorded request and how it differs.
 *
 * When the CLI that replays is another Claude Code version than the one that recorded, a request
 * that matches nothing as it is is matched again without its version-dependent parts (the system
 * prompt, tool descriptions and schemas, ...: see VERSION_DEPENDENT_FIELDS); if it still matches
 * nothing, the error says "recorded with Claude Code X, replaying with Y" and what else differs.
 */

/** The status of the divergence error: one the CLI neither retries (with x-should-retry) nor rewords. */
export const DIVERGENCE_STATUS = 409;

export interface ReplayOptions extends NormalizeOptions {
  /**
   * Put the current working directory (and config directory) in place of the recorded ones in
   * replayed responses, so tool calls with absolute paths land in this run's folder. Default true.
   */
  rewritePaths?: boolean;
  /** How the recording is called in messages (defaults to its file name). */
  label?: string;
  /**
   * The redaction the recording was made with: incoming requests are redacted the same way before
   * matching, so a secret in a prompt still matches its [REDACTED] recorded form.
   */
  redact?: RedactOptions;
  /**
   * When the replaying CLI is another Claude Code version than the recording's, match its requests
   * without their version-dependent parts (default true). False: every request must match as it is,
   * and a divergence still names both versions.
   */
  matchAcrossVersions?: boolean;
}

/** Where a replay left the recording, and how. */
export interface Divergence {
  /** The server's interaction index of the request that matched nothing. */
  interaction: number;
  /** Its position among the Messages requests of this replay (1-based: "request 3"). */
  request: number;
  method: string;
  path: string;
  /** The closest recorded interaction and how the request differs from it. */
  closest?: { index: number; differences: Difference[] };
  /**
   * The Claude Code versions, when they differ: the differences are then those left once the
   * version-dependent parts of both requests were taken out (unless `matchAcrossVersions` is false).
   */
  versions?: { recorded: string; replaying: string };
  /** The explanation sent to the CLI and shown in reports. */
  message: string;
}

export interface ReplaySource extends ModelSource {
  readonly recording: Recording;
  /** Requests that matched nothing, in order. */
  readonly divergences: Divergence[];
  /** Recorded interaction indexes that were replayed, in the order they were used. */
  readonly played: number[];
  /** Recorded Messages interactions never replayed (the run stopped early or went elsewhere). */
  unplayed(): number[];
  /** The Claude Code version that made the recording (its `claude_version`, else its requests'). */
  readonly recordedVersion: string | undefined;
  /** The versions of the CLI that sent this replay's requests, in the order first seen. */
  readonly replayingVersions: string[];
  /** Requests that matched only once their version-dependent parts were left out. */
  readonly matchedAcrossVersions: number[];
  /** A readable summary: what was replayed, where it diverged, what was left. */
  report(): string;
  /** Throws the first divergence (or an incomplete replay) as an Error with the report. */
  assertComplete(): void;
}

interface Entry {
  index: number;
  request: WireRequest;
  normalized: NormalizedRequest;
  key: string;
}

function replacePaths(text: string, pairs: Array<[string, string]>): string {
  let out = text;
  for (const [from, to] of pairs) {
    if (!from || from === to) continue;
    out = out.split(from).join(to);
    const jsonFrom = JSON.stringify(from).slice(1, -1);
    const jsonTo = JSON.stringify(to).slice(1, -1);
    if (jsonFrom !== from) out = out.split(jsonFrom).join(jsonTo);
  }
  return out;
}

/** A recording that must not be replayed: an answer was changed after it was recorded. */
export class RecordingIntegrityError extends Error {
  override readonly name = "RecordingIntegrityError";
}

/**
 * Replays `recording` (a Recording or the path of its file). It is checked first (see
 * recordingIntegrityProblem): an answer that was edited after recording throws a
 * RecordingIntegrityError before anything is served.
 */
export function replaying(recordingOrFile: Recording | string, options: ReplayOptions = {}): ReplaySource {
  const recording = typeof recordingOrFile === "string" ? readRecording(recordingOrFile) : recordingOrFile;
  const label = options.label ?? (typeof recordingOrFile === "string" ? recordingOrFile : "the recording");
  const problem = recordingIntegrityProblem(recording);
  if (problem) {
    throw new RecordingIntegrityError(
      `@evals/vcr refuses to replay ${label}: ${problem}. Nothing was replayed. If the change is yours, record the case again (VCR_MODE=record); otherwise restore the file from version control.`,
    );
  }
  const entries: Entry[] = recording.interactions.map((interaction, position) => {
    const request = recordedRequest(recording, interaction);
    const normalized = normalizeRequest(request, options);
    return { index: position, request, normalized, key: canonicalKey(normalized) };
  });
  const redactor = createRedactor(options.redact);
  const normalize = (request: WireRequest) =>
    normalizeRequest(
      request.body === undefined ? request : { ...request, body: redactor.value(request.body) },
      options,
    );
  const acrossVersions = options.matchAcrossVersions ?? true;
  const used = new Set<number>();
  const played: number[] = [];
  const divergences: Divergence[] = [];
  const replayingVersions: string[] = [];
  const matchedAcrossVersions: number[] = [];
  let messageRequests = 0;
  const recordedVersion =
    recording.claude_version ??
    entries.map((entry) => claudeVersionOf(entry.request)).find((version) => version !== undefined);

  /** The recorded requests without their version-dependent parts, per replaying version. */
  const neutralEntries = new Map<string, Entry[]>();
  const entriesAcross = (replaying: string): Entry[] => {
    let neutral = neutralEntries.get(replaying);
    if (!neutral) {
      neutral = entries.map((entry) => {
        const normalized = versionNeutral(entry.normalized, [recordedVersion!, replaying]);
        return { ...entry, normalized, key: canonicalKey(normalized) };
      });
      neutralEntries.set(replaying, neutral);
    }
    return neutral;
  };

  const closestTo = (normalized: NormalizedRequest, candidates: Entry[]): Divergence["closest"] => {
    const sameEndpoint = candidates.filter(
      (entry) => entry.normalized.method === normalized.method && entry.normalized.path === normalized.path,
    );
    const unusedFirst = [...sameEndpoint.filter((entry) => !used.has(entry.index)), ...sameEndpoint];
    let best: Divergence["closest"];
    for (const entry of unusedFirst) {
      const differences = diffValues(entry.normalized.body, normalized.body);
      if (!best || differences.length < best.differences.length) best = { index: entry.index, differences };
    }
    return best;
  };

  const diverge = (
    request: WireRequest,
    normalized: NormalizedRequest,
    interaction: number,
    versions: Divergence["versions"],
  ): SourceResponse => {
    const across = versions !== undefined && acrossVersions;
    const compared = across
      ? versionNeutral(normalized, [versions.recorded, versions.replaying])
      : normalized;
    const closest = closestTo(compared, across ? entriesAcross(versions.replaying) : entries);
    const where = `request ${messageRequests} (interaction #${interaction}, ${request.method} ${normalized.path})`;
    const lines = [`@evals/vcr replay diverged at ${where}: no recorded request in ${label} matches it.`];
    if (versions) {
      lines.push(
        across
          ? `It was recorded with Claude Code ${versions.recorded}, replaying with ${versions.replaying}: the parts of a request that change between versions (system prompt, tool descriptions and schemas, max_tokens, thinking, context_management, output_config, version strings) were left out of the match, and it still differs.`
          : `It was recorded with Claude Code ${versions.recorded}, replaying with ${versions.replaying} (matchAcrossVersions is off: requests must match as they are).`,
      );
    }
    if (closest) {
      lines.push(`Closest recorded request: interaction #${closest.index}, which differs at:`);
      lines.push(formatDifferences(closest.differences));
    } else {
      lines.push(`The recording has no ${normalized.method} ${normalized.path} request at all.`);
    }
    lines.push(
      versions
        ? `Record the run again with Claude Code ${versions.replaying} (VCR_MODE=record), or replay with ${versions.recorded}.`
        : "If the change is intended, record the run again (VCR_MODE=record).",
    );
    const message = lines.join("\n");
    divergences.push({
      interaction,
      request: messageRequests,
      method: request.method,
      path: normalized.path,
      ...(closest ? { closest } : {}),
      ...(versions ? { versions } : {}),
      message,
    });
    return {
      ...jsonResponse(
        DIVERGENCE_STATUS,
        geminiCallOf(request.path)
          ? geminiErrorBody(DIVERGENCE_STATUS, message)
          : errorBodyFor(request.path, 400, message, "invalid_request_error"),
        { "x-should-retry": "false" },
      ),
      error: message,
    };
  };

  const pick = (key: string, candidates: Entry[] = entries): Entry | undefined => {
    const matches = candidates.filter((entry) => entry.key === key);
    // The first unused match; a request repeated more often than recorded (a retry) gets the last.
    return matches.find((entry) => !used.has(entry.index)) ?? matches[matches.length - 1];
  };

  const source: ReplaySource = {
    name: "replay",
    recording,
    divergences,
    played,
    recordedVersion,
    replayingVersions,
    matchedAcrossVersions,
    async respond(request, context) {
      const normalized = normalize(request);
      const messages = isModelPath(request.path);
      if (messages) messageRequests++;
      const replaying = claudeVersionOf(request);
      if (replaying && !replayingVersions.includes(replaying)) replayingVersions.push(replaying);
      const versions =
        recordedVersion && replaying && replaying !== recordedVersion
          ? { recorded: recordedVersion, replaying }
          : undefined;
      let entry = pick(canonicalKey(normalized));
      if (!entry && versions && acrossVersions) {
        const neutral = versionNeutral(normalized, [versions.recorded, versions.replaying]);
        entry = pick(canonicalKey(neutral), entriesAcross(versions.replaying));
        if (entry) matchedAcrossVersions.push(entry.index);
      }
      if (!entry) {
        if (isCountTokensPath(request.path)) {
          return jsonResponse(200, {
            input_tokens: estimateTokens(request.raw_body ?? JSON.stringify(request.body ?? "")),
          });
        }
        if (!messages) {
          if (request.path.startsWith("/api/hello")) return jsonResponse(200, {});
          return jsonResponse(
            404,
            errorBodyFor(request.path, 404, `${request.method} ${request.path} is not in ${label}`),
          );
        }
        return diverge(request, normalized, context.index, versions);
      }
      used.add(entry.index);
      played.push(entry.index);
      const response = recordedResponse(recording.interactions[entry.index]!);
      if (options.rewritePaths === false) return response;
      const recorded = requestEnvironment(entry.request.body);
      const current = requestEnvironment(request.body);
      const pairs: Array<[string, string]> = [];
      if (recorded.configDir && current.configDir) pairs.push([recorded.configDir, current.configDir]);
      // Its key is the git root above the cwd when there is one, not always the escaped cwd.
      if (recorded.memoryDir && current.memoryDir) pairs.push([recorded.memoryDir, current.memoryDir]);
      if (recorded.cwd && current.cwd) {
        pairs.push([recorded.cwd, current.cwd]);
        pairs.push([claudeProjectKey(recorded.cwd), claudeProjectKey(current.cwd)]);
      }
      pairs.sort((a, b) => b[0].length - a[0].length);
      return { ...response, body: replacePaths(response.body, pairs) };
    },
    unplayed() {
      return entries
        .filter((entry) => !used.has(entry.index) && isModelPath(entry.request.path))
        .map((entry) => entry.index);
    },
    report() {
      const lines = [`Replayed ${played.length} of ${entries.length} recorded interactions from ${label}.`];
      const others = replayingVersions.filter((version) => version !== recordedVersion);
      if (recordedVersion && others.length > 0) {
        lines.push(
          `Recorded with Claude Code ${recordedVersion}, replayed with ${others.join(", ")}: ${matchedAcrossVersions.length} request(s) matched only without their version-dependent parts.`,
        );
      }
      for (const divergence of divergences) lines.push(divergence.message);
      const left = source.unplayed();
      if (left.length > 0)
        lines.push(`Never replayed: interactions ${left.map((index) => `#${index}`).join(", ")}.`);
      return lines.join("\n");
    },
    assertComplete() {
      if (divergences.length > 0 || source.unplayed().length > 0) throw new Error(source.report());
    },
  };
  return source;
}
