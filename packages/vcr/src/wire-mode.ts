import { existsSync } from "node:fs";
import { relative } from "node:path";
import { CassetteMissingError } from "./cassette.js";
import { type CassetteIdentity, cassettePath, jsonOptions, siblingCassettes } from "./cassette-file.js";
import { modePlan, resolveVcrMode, type VcrMode } from "./modes.js";
import { passthrough, recording } from "./record-source.js";
import type { RedactOptions } from "./redact.js";
import { type ReplayOptions, replaying } from "./replay-source.js";
import type { ModelSource } from "./wire.js";

/** Where a case's wire recording lives: `<dir>/<suite>/<case-id>.<hash>.recording.json`. */
export function recordingPath(identity: CassetteIdentity & { dir?: string }): string {
  return cassettePath(identity, "recording.json");
}

export interface WireSourceOptions extends CassetteIdentity {
  /** record | replay | auto | strict | off; defaults to VCR_MODE, else strict on CI, else auto. */
  mode?: VcrMode;
  /** The recordings folder (default `cassettes`). */
  dir?: string;
  /** Where live requests go: the real API by default (needs ANTHROPIC_API_KEY), or a loopback server. */
  upstream?: string;
  /** The API key for the upstream (default ANTHROPIC_API_KEY). The CLI itself gets a dummy key. */
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
  const file = recordingPath(options);
  const plan = modePlan(mode, mode === "off" ? false : existsSync(file));
  if (plan === "missing")
    throw new CassetteMissingError(file, options, siblingCassettes(file), "wire recording");
  const forward = {
    ...(options.upstream ? { upstream: options.upstream } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
  };
  if (plan === "replay") {
    const source = replaying(file, {
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
      metadata: {
        suite: options.suite,
        case_id: options.caseId,
        prompt: options.prompt,
        options: jsonOptions(options.options),
      },
    });
    return { source, mode, action: "record", file };
  }
  return { source: passthrough(forward), mode, action: "live", file };
}
