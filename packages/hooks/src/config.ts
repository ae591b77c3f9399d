import { DEFAULT_MAX_FIELD_BYTES } from "./truncate.js";

/** The hook's limits, from the environment (EVALS_HOOK_*), with defaults. */
export interface HookLimits {
  /** A field larger than this (UTF-8 bytes) is cut. EVALS_HOOK_MAX_FIELD_BYTES, default 256 KiB. */
  maxFieldBytes: number;
  /** A whole events.jsonl line stays under this. EVALS_HOOK_MAX_LINE_BYTES, default 4 MiB. */
  maxLineBytes: number;
  /** Stdin beyond this is not captured. EVALS_HOOK_MAX_INPUT_BYTES, default 64 MiB. */
  maxInputBytes: number;
  /** How long to wait for stdin to close. EVALS_HOOK_STDIN_TIMEOUT_MS, default 5000. */
  stdinTimeoutMs: number;
}

export const DEFAULT_HOOK_LIMITS: HookLimits = {
  maxFieldBytes: DEFAULT_MAX_FIELD_BYTES,
  maxLineBytes: 4 * 1024 * 1024,
  maxInputBytes: 64 * 1024 * 1024,
  stdinTimeoutMs: 5000,
};

/** Reads the limits; a missing, non-numeric or non-positive value keeps the default. */
export function hookLimitsFromEnv(env: Record<string, string | undefined>): HookLimits {
  return {
    maxFieldBytes: positiveInt(env.EVALS_HOOK_MAX_FIELD_BYTES) ?? DEFAULT_HOOK_LIMITS.maxFieldBytes,
    maxLineBytes: positiveInt(env.EVALS_HOOK_MAX_LINE_BYTES) ?? DEFAULT_HOOK_LIMITS.maxLineBytes,
    maxInputBytes: positiveInt(env.EVALS_HOOK_MAX_INPUT_BYTES) ?? DEFAULT_HOOK_LIMITS.maxInputBytes,
    stdinTimeoutMs: positiveInt(env.EVALS_HOOK_STDIN_TIMEOUT_MS) ?? DEFAULT_HOOK_LIMITS.stdinTimeoutMs,
  };
}

function positiveInt(text: string | undefined): number | undefined {
  if (!text || !/^\d+$/.test(text.trim())) return undefined;
  const value = Number(text.trim());
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
