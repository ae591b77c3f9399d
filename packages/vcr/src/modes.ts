/**
 * VCR modes, shared by tool-level cassettes and wire-level recordings:
 *
 * - `record`: run live and (over)write the cassette/recording;
 * - `replay`: replay when the cassette exists, else run live without writing anything;
 * - `auto`: replay when the cassette exists, else run live and record it;
 * - `strict`: replay only; a missing cassette fails with a message naming the file to record;
 * - `off`: run live, never read or write cassettes.
 *
 * The mode comes from the option, else `VCR_MODE`, else `strict` when `CI` is set and `auto` otherwise.
 */

export const VCR_MODES = ["record", "replay", "auto", "strict", "off"] as const;
export type VcrMode = (typeof VCR_MODES)[number];

function isMode(value: string): value is VcrMode {
  return (VCR_MODES as readonly string[]).includes(value);
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";
}

/** The mode to use: the explicit one, else VCR_MODE, else strict on CI and auto elsewhere. */
export function resolveVcrMode(mode?: string, env: NodeJS.ProcessEnv = process.env): VcrMode {
  const chosen = mode ?? (env.VCR_MODE ? env.VCR_MODE.trim().toLowerCase() : undefined);
  if (chosen !== undefined) {
    if (!isMode(chosen)) {
      const from = mode !== undefined ? "mode option" : "VCR_MODE";
      throw new Error(`${from} is "${chosen}"; expected one of ${VCR_MODES.join(", ")}`);
    }
    return chosen;
  }
  return truthy(env.CI) ? "strict" : "auto";
}

/** What a mode does when the cassette is there, and when it is not. */
export function modePlan(mode: VcrMode, exists: boolean): "replay" | "record" | "live" | "missing" {
  switch (mode) {
    case "off":
      return "live";
    case "record":
      return "record";
    case "replay":
      return exists ? "replay" : "live";
    case "auto":
      return exists ? "replay" : "record";
    case "strict":
      return exists ? "replay" : "missing";
  }
}
