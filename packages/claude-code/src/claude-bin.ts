import { spawnSync } from "node:child_process";
import { findInstalledBin } from "@evals/core/process";

/** The Claude Code version these packages were built and tested against. */
export const SUPPORTED_CLAUDE_VERSION = "2.1.330";

const INSTALL_HINT =
  `Install it next to your tests with \`npm install -D @anthropic-ai/claude-code@${SUPPORTED_CLAUDE_VERSION}\` ` +
  "(npm 11 may skip its install script: allow it, then check that `npx claude --version` prints a version), " +
  "or point EVALS_CLAUDE_BIN (or runAgent's `claudeBin` option) at an existing `claude` executable.";

/** Thrown when no `claude` executable can be found; the message lists where it looked. */
export class ClaudeNotFoundError extends Error {
  override readonly name = "ClaudeNotFoundError";
  constructor(
    readonly searched: string[],
    detail?: string,
  ) {
    super(
      `Claude Code CLI not found${detail ? ` (${detail})` : ""}. Looked in:\n` +
        searched.map((place) => `  - ${place}`).join("\n") +
        `\n${INSTALL_HINT}`,
    );
  }
}

export interface FindClaudeOptions {
  /** An explicit path to the executable; when set, nothing else is tried. */
  claudeBin?: string;
  /** Where the node_modules/.bin walk starts (default: process.cwd()). */
  from?: string;
  /** More folders to walk up from after `from`, before PATH. */
  alsoFrom?: readonly string[];
  /** The environment to read EVALS_CLAUDE_BIN and PATH from (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Finds the `claude` executable: the `claudeBin` option, then `EVALS_CLAUDE_BIN`, then
 * `node_modules/.bin/claude` in the start directory (then `alsoFrom`'s) and each parent, then PATH.
 * Throws a ClaudeNotFoundError that says where it looked and how to install it.
 */
export function findClaude(options: FindClaudeOptions = {}): string {
  const found = findInstalledBin("claude", {
    option: { name: "claudeBin", value: options.claudeBin },
    envVar: "EVALS_CLAUDE_BIN",
    ...(options.from ? { from: options.from } : {}),
    ...(options.alsoFrom ? { alsoFrom: options.alsoFrom } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  if (found.bin) return found.bin;
  const named = found.explicit === "option" ? "the claudeBin option" : "EVALS_CLAUDE_BIN";
  throw new ClaudeNotFoundError(found.searched, found.explicit ? `${named} names no executable` : undefined);
}

export type ClaudeAvailability =
  | { available: true; bin: string; version: string }
  | { available: false; reason: string };

const availabilityCache = new Map<string, ClaudeAvailability>();

/**
 * Whether a working `claude` can be run: found (see findClaude) and answering `--version`.
 * The answer is cached per process and lookup; suites use it to skip themselves with a reason:
 *
 *     const claude = claudeAvailable();
 *     describe.skipIf(!claude.available)("my agent", () => { ... });
 */
export function claudeAvailable(options: FindClaudeOptions = {}): ClaudeAvailability {
  const key = JSON.stringify([
    options.claudeBin,
    options.from ?? process.cwd(),
    (options.env ?? process.env).EVALS_CLAUDE_BIN,
  ]);
  const cached = availabilityCache.get(key);
  if (cached) return cached;
  let answer: ClaudeAvailability;
  try {
    const bin = findClaude(options);
    const probe = spawnSync(bin, ["--version"], {
      encoding: "utf8",
      timeout: 30_000,
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", FORCE_COLOR: "0", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
    });
    const version = /\d+\.\d+\.\d+/.exec(probe.stdout ?? "")?.[0];
    answer =
      probe.status === 0 && version
        ? { available: true, bin, version }
        : {
            available: false,
            reason: `${bin} --version failed (${probe.error?.message ?? `exit ${probe.status}`}${
              probe.stderr ? `: ${probe.stderr.trim().slice(0, 300)}` : ""
            }). ${INSTALL_HINT}`,
          };
  } catch (error) {
    answer = { available: false, reason: (error as Error).message };
  }
  availabilityCache.set(key, answer);
  return answer;
}

/** What a suite needs from vitest's test context to skip itself. */
export interface SkippableContext {
  skip(note?: string): void;
  /** vitest's test: the reason is kept in its meta (`skipReason`), which vitest's JSON report holds. */
  task?: { meta: object };
}

/**
 * The test meta of a test skipped for a missing `claude` (vitest's JSON report keeps a test's meta,
 * not its skip note): what the workspace's eval summary prints.
 */
export interface SkipMeta {
  skipReason: string;
}

/**
 * Skips the current vitest test with the reason when no working `claude` is available, and
 * returns the reason (or undefined when claude is there). Use it at the top of a live test:
 *
 *     test("lists files", async (ctx) => { skipIfNoClaude(ctx); ... });
 */
export function skipIfNoClaude(
  context?: SkippableContext,
  options: FindClaudeOptions = {},
): string | undefined {
  const claude = claudeAvailable(options);
  if (claude.available) return undefined;
  const note = `claude is not available: ${claude.reason}`;
  if (context?.task) Object.assign(context.task.meta, { skipReason: note } satisfies SkipMeta);
  context?.skip(note);
  return claude.reason;
}
