import { type ParseArgsConfig, parseArgs } from "node:util";

/** Bad arguments: the script prints this with its usage and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Parses options strictly: an unknown option or a missing value is a UsageError. */
export function parseOptions<T extends Options>(
  argv: string[],
  options: T,
  allowPositionals = false,
): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: argv, options, strict: true, allowPositionals, allowNegative: false });
    return {
      values: parsed.values as Record<string, string | boolean | string[] | undefined>,
      positionals: parsed.positionals,
    };
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, "."));
  }
}

/**
 * A command's action (its first argument) and the options after it, parsed; an unknown or missing
 * action, and (with `allowed`) an option the action does not take, are UsageErrors.
 */
export function parseAction<Action extends string, T extends Options>(
  argv: string[],
  actions: readonly Action[],
  options: T,
  allowed?: Record<Action, readonly string[]>,
): { action: Action; values: Record<string, string | boolean | string[] | undefined> } {
  const [actionArg, ...rest] = argv;
  if (!actionArg || actionArg.startsWith("-")) {
    throw new UsageError(`Say what to do first: one of ${actions.join(", ")}.`);
  }
  if (!actions.includes(actionArg as Action)) {
    throw new UsageError(`Unknown action "${actionArg}": use one of ${actions.join(", ")}.`);
  }
  const action = actionArg as Action;
  const { values } = parseOptions(rest, options);
  for (const option of Object.keys(values)) {
    if (allowed && !allowed[action].includes(option))
      throw new UsageError(`${action} does not take --${option}.`);
  }
  return { action, values };
}

export function optionalString(values: Record<string, unknown>, name: string): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !value.trim()) throw new UsageError(`--${name} needs a non-empty value.`);
  return value;
}

export function requiredString(values: Record<string, unknown>, name: string, why = ""): string {
  const value = optionalString(values, name);
  if (value === undefined) throw new UsageError(`--${name} is required${why}.`);
  return value;
}

/** A timeout in seconds (decimals allowed), between 1 and 3600. */
export function seconds(values: Record<string, unknown>, name: string, fallback: number): number {
  const raw = optionalString(values, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 1 || value > 3600) {
    throw new UsageError(`--${name} must be a number of seconds from 1 to 3600 (got "${raw}").`);
  }
  return value;
}

export function positiveInteger(
  values: Record<string, unknown>,
  name: string,
  fallback?: number,
): number | undefined {
  const raw = optionalString(values, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new UsageError(`--${name} must be a whole number of 1 or more (got "${raw}").`);
  return Number(raw);
}

/** Folder lists given as `--include-dirs a,b` and/or repeated `--include-dirs c`. */
export function commaList(values: Record<string, unknown>, name: string): string[] {
  const raw = values[name];
  const items = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]) as string[];
  return items
    .flatMap((item) => item.split(","))
    .map((item) => item.trim())
    .filter(Boolean);
}

/** `2026-01-31`, an ISO timestamp, or a duration back from now: `30m`, `12h`, `7d`, `2w`. */
export function parseSince(raw: string, now = Date.now()): Date {
  const relative = /^(\d+)\s*([mhdw])$/.exec(raw.trim());
  if (relative) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[
      relative[2] as "m" | "h" | "d" | "w"
    ];
    return new Date(now - Number(relative[1]) * unit);
  }
  const absolute = Date.parse(raw);
  if (Number.isNaN(absolute)) {
    throw new UsageError(
      `--since must be a date (2026-01-31), an ISO timestamp or a duration (30m, 12h, 7d, 2w); got "${raw}".`,
    );
  }
  return new Date(absolute);
}

/** How long ago, from a duration like `30d`: for --older-than. */
export function parseDuration(raw: string, name: string): number {
  const match = /^(\d+)\s*([mhdw])$/.exec(raw.trim());
  if (!match) throw new UsageError(`--${name} must be a duration like 30m, 12h, 7d or 2w (got "${raw}").`);
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as "m" | "h" | "d" | "w"];
  return Number(match[1]) * unit;
}
