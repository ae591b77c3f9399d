import { existsSync } from "node:fs";
import { relative } from "node:path";
import type { AgentRunResult, RedactOptions } from "@evals/core";
import {
  buildCassette,
  type Cassette,
  type CassetteIdentity,
  cassettePath,
  cassetteResult,
  identityMismatch,
  readCassette,
  siblingCassettes,
  storedIdentityMismatch,
  writeCassette,
} from "./cassette-file.js";
import { modePlan, resolveVcrMode, type VcrMode } from "./modes.js";
import { canonicalJson } from "./stable-json.js";

/** A live run of the agent: what the harness's runAgent returns. */
export type LiveRun = () => Promise<AgentRunResult>;

export interface CassetteOptions extends CassetteIdentity {
  /** The case's human name (stored in the metadata). */
  caseName?: string;
  /** record | replay | auto | strict | off; defaults to VCR_MODE, else strict on CI, else auto. */
  mode?: VcrMode;
  /** The cassette folder (default `cassettes` in the current directory). */
  dir?: string;
  redact?: RedactOptions;
  /**
   * Whether a live run is worth recording (default: every run that did not time out). A run that
   * is not recorded is still returned.
   */
  shouldRecord?: (result: AgentRunResult) => boolean;
}

/** A strict replay found no cassette (or no wire recording), or one that is not this case's. */
export class CassetteMissingError extends Error {
  readonly file: string;
  readonly others: string[];
  /** Why the file that is there cannot be replayed (another case's, an empty recording), if one is. */
  readonly problem: string | undefined;
  constructor(
    file: string,
    identity: Pick<CassetteIdentity, "suite" | "caseId">,
    others: string[],
    what = "cassette",
    problem?: string,
    /** What differs between the case and each of `others` (see storedIdentityMismatch), in order. */
    readonly differences: Array<string | undefined> = [],
  ) {
    const shown = relative(process.cwd(), file) || file;
    const name = identity.suite ? `${identity.suite} › ${identity.caseId}` : identity.caseId;
    const lines = [
      problem
        ? `No usable ${what} for ${name}: ${shown} is there, but ${problem} (VCR_MODE=strict).`
        : `No ${what} for ${name}: expected ${shown} (VCR_MODE=strict).`,
      "Record it by running this test once with VCR_MODE=record (or auto) and ANTHROPIC_API_KEY set, then commit the file.",
    ];
    for (const [index, other] of others.entries()) {
      const why = differences[index] ?? "recorded for a different prompt or options";
      lines.push(
        `Found ${relative(process.cwd(), other) || other} for this case: ${why}, so it no longer applies.`,
      );
    }
    super(lines.join("\n"));
    this.name = "CassetteMissingError";
    this.file = file;
    this.others = others;
    this.problem = problem;
  }
}

/** The CassetteMissingError of a case, with what differs in each other file recorded for it. */
export function missingError(
  file: string,
  identity: CassetteIdentity,
  what: string,
  problem: string | undefined,
): CassetteMissingError {
  const others = siblingCassettes(file, identity);
  const differences = others.map((other) => storedIdentityMismatch(other, identity));
  return new CassetteMissingError(file, identity, others, what, problem, differences);
}

/** What `cassette()` did, for reports. */
export interface CassetteOutcome {
  file: string;
  mode: VcrMode;
  action: "replayed" | "recorded" | "live";
}

/**
 * Runs a case through its cassette: replays it when the mode says so (never starting the agent),
 * otherwise calls `liveRun` and records its result when the mode says so.
 *
 * ```ts
 * const result = await cassette({ suite: "skills", caseId: "lists-files", prompt, options }, () => runAgent({ prompt, ...options }));
 * ```
 */
export async function cassette(
  options: CassetteOptions,
  liveRun: LiveRun,
  onOutcome?: (outcome: CassetteOutcome) => void,
): Promise<AgentRunResult> {
  const mode = resolveVcrMode(options.mode);
  const file = cassettePath(options);
  const stored = mode === "off" || !existsSync(file) ? undefined : readCassette(file);
  // A file of this name that another case recorded is no recording of this one.
  const problem = stored && identityMismatch(stored.metadata, options);
  const plan = modePlan(mode, stored !== undefined && !problem);
  if (plan === "missing") throw missingError(file, options, "cassette", problem);
  if (plan === "replay" && stored) {
    const result = cassetteResult(stored);
    onOutcome?.({ file, mode, action: "replayed" });
    return result;
  }
  const result = await liveRun();
  const record =
    plan === "record" && (options.shouldRecord ? options.shouldRecord(result) : !result.timed_out);
  if (record) {
    writeCassette(
      file,
      buildCassette({
        suite: options.suite,
        caseId: options.caseId,
        prompt: options.prompt,
        ...(options.options ? { options: options.options } : {}),
        ...(options.caseName ? { caseName: options.caseName } : {}),
        result,
      }),
      options.redact,
    );
  }
  onOutcome?.({ file, mode, action: record ? "recorded" : "live" });
  return result;
}

/** The options of a runAgent-like function: at least a prompt (or the prompts of a conversation). */
export interface RunAgentLikeOptions {
  prompt: string | string[];
}

export interface WithCassetteOptions<O> extends Omit<CassetteOptions, "prompt" | "options"> {
  /**
   * The options that identify the run in the cassette's key (default: every JSON-able option but
   * `prompt`, `cwd`, `env`, `timeoutMs`, `signal` and functions).
   */
  keyOptions?: (options: O) => Record<string, unknown>;
}

const UNKEYED_OPTIONS = new Set([
  "prompt",
  "cwd",
  "env",
  "timeoutMs",
  "timeout",
  "signal",
  "outputDir",
  "runId",
]);

function defaultKeyOptions(options: object): Record<string, unknown> {
  const keyed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(options)) {
    if (UNKEYED_OPTIONS.has(name) || typeof value === "function" || value === undefined) continue;
    keyed[name] = value;
  }
  return keyed;
}

/**
 * Wraps a runAgent-like function so each call goes through the case's cassette: a drop-in with the
 * same signature.
 *
 * ```ts
 * const run = withCassette(runAgent, { suite: "skills", caseId: "lists-files" });
 * const result = await run({ prompt: "list the files", allowedTools: ["Bash"] });
 * ```
 */
export function withCassette<O extends RunAgentLikeOptions>(
  runAgent: (options: O) => Promise<AgentRunResult>,
  settings: WithCassetteOptions<O>,
): (options: O) => Promise<AgentRunResult> {
  const { keyOptions, ...rest } = settings;
  return (options: O) =>
    cassette({ ...rest, prompt: options.prompt, options: (keyOptions ?? defaultKeyOptions)(options) }, () =>
      runAgent(options),
    );
}

/**
 * A drop-in for runAgent that replays one cassette file and never starts the agent. Given a prompt,
 * it checks that it is the one the cassette was recorded with.
 */
export function playCassette(
  file: string,
): (options?: Partial<RunAgentLikeOptions>) => Promise<AgentRunResult> {
  let loaded: Cassette | undefined;
  return async (options = {}) => {
    loaded ??= readCassette(file);
    if (
      options.prompt !== undefined &&
      canonicalJson(options.prompt) !== canonicalJson(loaded.metadata.prompt)
    ) {
      throw new Error(
        `${file} was recorded for the prompt ${JSON.stringify(loaded.metadata.prompt)}, not ${JSON.stringify(options.prompt)}; record the case again`,
      );
    }
    return cassetteResult(loaded);
  };
}
