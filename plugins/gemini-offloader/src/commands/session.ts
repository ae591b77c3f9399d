import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { resolveIn } from "../cache/included-files.js";
import {
  commaList,
  optionalString,
  parseAction,
  positiveInteger,
  requiredString,
  seconds,
  UsageError,
} from "../cli/args.js";
import type { ScriptOutcome } from "../cli/run-script.js";
import { readPipedStdin, stdinLimits } from "../cli/stdin.js";
import { geminiMissing, type ScriptContext } from "../context.js";
import { type Diagnostic, EXIT, exitCodeFor, makeDiagnostic } from "../gemini/diagnose.js";
import { prepareGeminiEnvironment } from "../gemini/environment.js";
import { runProcess, runPrompt } from "../gemini/run-gemini.js";
import { type GeminiSession, listGeminiSessions } from "../gemini/session-files.js";
import { saveSessionAnswers } from "../sessions/adopted-turns.js";
import {
  mappingForSession,
  type NamedSession,
  namedSessions,
  preview,
  readSessionMap,
  updateSessionMap,
} from "../sessions/session-map.js";
import { writeTextFileAtomic } from "../store/json-file.js";
import { ensureProject } from "../store/locations.js";
import { DEFAULT_SUMMARY_CHARS, summarize } from "../summary.js";
import { defaultTimeout } from "./query.js";
import { discover, migrate } from "./session-discover.js";

export const SESSION_USAGE = `Usage: node dist/session.js <action> [options]
  list                                        named sessions (with health) and Gemini's sessions of this project
  create   --name NAME --prompt TEXT          start a new Gemini session and name it
  continue --prompt TEXT [--name NAME]        next turn of a named session (without --name: the latest session)
  resume   --prompt TEXT (--index N | --session-id ID) [--name NAME]
                                              next turn of any Gemini session of this project (N from list)
  delete   (--name NAME | --index N | --session-id ID)
                                              delete the Gemini session and the names that point to it
  adopt    --name NAME (--index N | --session-id ID)
                                              give a name to a Gemini session made elsewhere (or fix a legacy name)
  discover [--all-projects] [--adopt]         Gemini sessions no name points to (made outside the plugin);
                                              --adopt names each of this project's gemini-<first 8 of its id>
  migrate  [--from FILE] [--dry-run] [--legacy-base 0|1]
                                              move names from the seed plugin's state file (default
                                              ./.gemini-offloader-sessions.json, format version 0) and legacy
                                              index entries into sessions.json (version 1); the seed's
                                              indexes count from 0, legacy entries from --legacy-base
                                              (default 1, as list shows), oldest first
Turn options: -m/--model NAME, -d/--include-dirs A,B, --yolo, -t/--timeout SECONDS (default 90),
              --summary-chars N (default ${DEFAULT_SUMMARY_CHARS}); piped stdin becomes context.
Exit codes: 0 done, 1 failure (see error/diagnostic: stale_session, unknown, ...), 2 bad arguments,
            75 rate limited, 77 authentication, 124 timeout.`;

const ACTIONS = ["list", "create", "continue", "resume", "delete", "adopt", "discover", "migrate"] as const;

type Action = (typeof ACTIONS)[number];

const OPTIONS = {
  name: { type: "string", short: "n" },
  prompt: { type: "string", short: "p" },
  index: { type: "string", short: "i" },
  "session-id": { type: "string", short: "s" },
  model: { type: "string", short: "m" },
  "include-dirs": { type: "string", multiple: true, short: "d" },
  yolo: { type: "boolean" },
  timeout: { type: "string", short: "t" },
  "summary-chars": { type: "string" },
  "all-projects": { type: "boolean" },
  adopt: { type: "boolean" },
  from: { type: "string" },
  "dry-run": { type: "boolean" },
  "legacy-base": { type: "string" },
} as const;

/** Which options each action takes (anything else is a usage error). */
const ALLOWED: Record<Action, string[]> = {
  list: [],
  create: ["name", "prompt", "model", "include-dirs", "yolo", "timeout", "summary-chars"],
  continue: ["name", "prompt", "model", "include-dirs", "yolo", "timeout", "summary-chars"],
  resume: [
    "name",
    "prompt",
    "index",
    "session-id",
    "model",
    "include-dirs",
    "yolo",
    "timeout",
    "summary-chars",
  ],
  delete: ["name", "index", "session-id", "timeout"],
  adopt: ["name", "index", "session-id"],
  discover: ["all-projects", "adopt"],
  migrate: ["from", "dry-run", "legacy-base"],
};

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const DELETE_TIMEOUT_SECONDS = 30;

type Values = Record<string, string | boolean | string[] | undefined>;

export async function sessionCommand(argv: string[], context: ScriptContext): Promise<ScriptOutcome> {
  const { action, values } = parseAction(argv, ACTIONS, OPTIONS, ALLOWED);
  const name = optionalString(values, "name");
  if (name !== undefined && !NAME_PATTERN.test(name)) {
    throw new UsageError(`--name "${name}" must be 1-64 letters, digits, dots, dashes or underscores.`);
  }
  validateTarget(action, values);
  // discover and migrate only read Gemini's files on disk: they work without Gemini installed.
  if (action === "discover") return discover(values, context);
  if (action === "migrate") return migrate(values, context);
  if (!context.geminiBin.found) return geminiMissing(context.geminiBin, { action });

  switch (action) {
    case "list":
      return list(context);
    case "create":
      return create(values, requiredString(values, "name", " (the name to give the session)"), context);
    case "continue":
      return continueSession(values, name, context);
    case "resume":
      return resume(values, name, context);
    case "delete":
      return deleteSession(values, name, context);
    case "adopt":
      return adopt(values, requiredString(values, "name", " (the name to give the session)"), context);
    default:
      throw new UsageError(`Unknown action "${action}".`);
  }
}

function validateTarget(action: Action, values: Values): void {
  const targets = ["name", "index", "session-id"].filter((option) => values[option] !== undefined);
  sessionIndex(values);
  if (action === "resume" || action === "adopt") {
    const picked = targets.filter((option) => option !== "name");
    if (picked.length !== 1) throw new UsageError(`${action} needs exactly one of --index or --session-id.`);
  }
  if (action === "delete" && targets.length !== 1) {
    throw new UsageError("delete needs exactly one of --name, --index or --session-id.");
  }
  if (["create", "continue", "resume"].includes(action)) requiredString(values, "prompt", ` for ${action}`);
}

// ---------------------------------------------------------------- list

function list(context: ScriptContext): ScriptOutcome {
  const { project } = context;
  const sessions = listGeminiSessions(context.gemini.dotGemini, project.root);
  const named = namedSessions(readSessionMap(project), sessions);
  return {
    exitCode: EXIT.ok,
    output: {
      success: true,
      action: "list",
      project: { path: project.root, hash: project.hash },
      named,
      gemini_sessions: sessions.map((session, index) => describeGeminiSession(session, index + 1, named)),
      error: null,
    },
  };
}

function describeGeminiSession(session: GeminiSession, index: number, named: NamedSession[]) {
  return {
    index,
    session_id: session.sessionId,
    names: named.filter((entry) => entry.session_id === session.sessionId).map((entry) => entry.name),
    started_at: session.startTime,
    updated_at: session.lastUpdated,
    turns: session.turns,
    first_prompt: session.firstPrompt === null ? null : preview(session.firstPrompt),
    last_prompt: session.lastPrompt === null ? null : preview(session.lastPrompt),
    summary: session.summary,
    file: session.file,
  };
}

// ---------------------------------------------------------------- turns

interface TurnOptions {
  prompt: string;
  model: string | null;
  includeDirs: string[];
  yolo: boolean;
  timeoutMs: number;
  summaryChars: number;
}

function turnOptions(values: Values, context: ScriptContext): TurnOptions {
  const includeDirs = commaList(values, "include-dirs").map((dir) => resolveIn(context.cwd, dir));
  for (const dir of includeDirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new UsageError(`--include-dirs: ${dir} is not a folder.`);
  }
  return {
    prompt: requiredString(values, "prompt"),
    model: optionalString(values, "model") ?? null,
    includeDirs,
    yolo: values.yolo === true,
    timeoutMs: seconds(values, "timeout", defaultTimeout(context.env)) * 1000,
    summaryChars: positiveInteger(values, "summary-chars", DEFAULT_SUMMARY_CHARS)!,
  };
}

/** Fields every turn's output has, whatever happened. */
function turnResult(action: Action) {
  return {
    success: false,
    action,
    session: null as Record<string, unknown> | null,
    response: null as string | null,
    response_chars: 0,
    truncated: false,
    full_response_path: null as string | null,
    model: null as string | null,
    turn: null as number | null,
    duration_ms: 0,
    diagnostic: null as Diagnostic | null,
    error: null as string | null,
  };
}

type TurnTarget = { sessionId: string | null };

/**
 * One turn: sends the prompt (resuming `target.sessionId` if set), saves the full answer under
 * sessions/<session id>/turn-<n>.md, and returns the Gemini session id with the output fields.
 */
async function runTurn(
  action: Action,
  target: TurnTarget,
  options: TurnOptions,
  context: ScriptContext,
): Promise<{ outcome: ScriptOutcome; sessionId: string | null; turns: number | null }> {
  const started = Date.now();
  const result = turnResult(action);
  const piped = await readPipedStdin(stdinLimits(context.env));
  prepareGeminiEnvironment(context.gemini);
  const answer = await runPrompt({
    bin: (context.geminiBin as { path: string }).path,
    cwd: context.project.root,
    env: context.gemini.env,
    prompt: options.prompt,
    model: options.model,
    includeDirs: options.includeDirs,
    yolo: options.yolo,
    resume: target.sessionId,
    context: piped?.text ?? null,
    timeoutMs: options.timeoutMs,
  });
  if (!answer.ok) {
    result.duration_ms = Date.now() - started;
    result.diagnostic = answer.diagnostic;
    result.error = `${answer.diagnostic.type}: ${answer.diagnostic.message}`;
    return {
      outcome: { exitCode: exitCodeFor(answer.diagnostic), output: result },
      sessionId: null,
      turns: null,
    };
  }
  const sessionId = answer.sessionId ?? target.sessionId;
  const onDisk = sessionId
    ? listGeminiSessions(context.gemini.dotGemini, context.project.root).find(
        (s) => s.sessionId === sessionId,
      )
    : undefined;
  const turn = onDisk?.turns ?? null;
  ensureProject(context.layout, context.project);
  const fullPath = join(
    context.project.sessionResponsesDir,
    sessionId ?? "unknown-session",
    `turn-${String(turn ?? Date.now()).padStart(3, "0")}.md`,
  );
  writeTextFileAtomic(fullPath, answer.response);
  const summary = summarize(answer.response, options.summaryChars, fullPath);
  return {
    outcome: {
      exitCode: EXIT.ok,
      output: {
        ...result,
        success: true,
        response: summary.text,
        response_chars: answer.response.length,
        truncated: summary.truncated,
        full_response_path: fullPath,
        model: answer.model,
        turn,
        duration_ms: Date.now() - started,
      },
    },
    sessionId,
    turns: turn,
  };
}

function staleOutcome(
  action: Action,
  message: string,
  session: Record<string, unknown> | null,
): ScriptOutcome {
  const diagnostic = makeDiagnostic("stale_session", message);
  return {
    exitCode: EXIT.failure,
    output: { ...turnResult(action), session, diagnostic, error: `stale_session: ${message}` },
  };
}

function failure(action: Action, error: string, extra: Record<string, unknown> = {}): ScriptOutcome {
  return { exitCode: EXIT.failure, output: { success: false, action, ...extra, error } };
}

function sessionView(name: string | null, sessionId: string, turns: number | null) {
  return { name, session_id: sessionId, health: "healthy", turns };
}

async function recordTurn(
  context: ScriptContext,
  name: string,
  sessionId: string,
  turns: number | null,
  options: TurnOptions,
  adopted: boolean,
): Promise<void> {
  const now = new Date().toISOString();
  await updateSessionMap(context.project, (map) => {
    const previous = map.sessions[name];
    const existing = typeof previous === "object" && previous.session_id === sessionId ? previous : undefined;
    map.sessions[name] = {
      session_id: sessionId,
      created_at: existing?.created_at ?? now,
      last_used_at: now,
      turns: turns ?? (existing?.turns ?? 0) + 1,
      last_prompt_preview: preview(options.prompt),
      model: options.model ?? existing?.model ?? null,
      adopted: existing?.adopted ?? adopted,
    };
  });
}

// ---------------------------------------------------------------- create / continue / resume

async function create(values: Values, name: string, context: ScriptContext): Promise<ScriptOutcome> {
  const options = turnOptions(values, context);
  const taken = readSessionMap(context.project).sessions[name];
  if (taken !== undefined) {
    return failure("create", `A session named "${name}" already exists: continue it, or delete it first.`, {
      ...turnResult("create"),
    });
  }
  const turn = await runTurn("create", { sessionId: null }, options, context);
  if (turn.outcome.exitCode !== EXIT.ok) return turn.outcome;
  if (!turn.sessionId) {
    return failure("create", "Gemini answered but reported no session id; the session was not named.", {
      ...turn.outcome.output,
      success: false,
    });
  }
  await recordTurn(context, name, turn.sessionId, turn.turns, options, false);
  turn.outcome.output.session = sessionView(name, turn.sessionId, turn.turns);
  return turn.outcome;
}

async function continueSession(
  values: Values,
  name: string | undefined,
  context: ScriptContext,
): Promise<ScriptOutcome> {
  const options = turnOptions(values, context);
  const sessions = listGeminiSessions(context.gemini.dotGemini, context.project.root);
  if (name === undefined) {
    const latest = [...sessions].sort((a, b) => a.lastUpdated.localeCompare(b.lastUpdated)).at(-1);
    if (!latest) {
      return failure("continue", "This project has no Gemini session to continue: start one with `create`.", {
        ...turnResult("continue"),
      });
    }
    return namedTurn("continue", null, latest.sessionId, options, context);
  }
  const named = namedSessions(readSessionMap(context.project), sessions).find((entry) => entry.name === name);
  if (!named) {
    return failure("continue", `No session named "${name}" in this project: see \`session list\`.`, {
      ...turnResult("continue"),
    });
  }
  if (named.health === "legacy") {
    return staleOutcome(
      "continue",
      `"${name}" is a legacy mapping (Gemini session index ${named.legacy_index}) with no session id; give it one with \`session adopt --name ${name} --index N\`, or move every legacy name with \`session migrate\`.`,
      { ...named },
    );
  }
  if (named.health === "stale") {
    return staleOutcome(
      "continue",
      `Gemini no longer has session ${named.session_id} that "${name}" points to.`,
      { ...named },
    );
  }
  return namedTurn("continue", name, named.session_id!, options, context);
}

async function resume(
  values: Values,
  name: string | undefined,
  context: ScriptContext,
): Promise<ScriptOutcome> {
  const options = turnOptions(values, context);
  const found = findGeminiSession(values, context);
  if (!found.session) return staleOutcome("resume", found.problem, null);
  if (name !== undefined) {
    const taken = readSessionMap(context.project).sessions[name];
    if (taken !== undefined && (typeof taken === "number" || taken.session_id !== found.session.sessionId)) {
      return failure("resume", `The name "${name}" is already used for another session.`, {
        ...turnResult("resume"),
      });
    }
  }
  return namedTurn("resume", name ?? null, found.session.sessionId, options, context);
}

async function namedTurn(
  action: Action,
  name: string | null,
  sessionId: string,
  options: TurnOptions,
  context: ScriptContext,
): Promise<ScriptOutcome> {
  const turn = await runTurn(action, { sessionId }, options, context);
  if (turn.outcome.exitCode !== EXIT.ok) {
    turn.outcome.output.session = { name, session_id: sessionId };
    return turn.outcome;
  }
  const names = name ? [name] : namesOf(context, sessionId);
  for (const each of names)
    await recordTurn(context, each, sessionId, turn.turns, options, action === "resume");
  turn.outcome.output.session = sessionView(name ?? names[0] ?? null, sessionId, turn.turns);
  return turn.outcome;
}

function namesOf(context: ScriptContext, sessionId: string): string[] {
  return Object.entries(readSessionMap(context.project).sessions)
    .filter(([, mapping]) => typeof mapping === "object" && mapping.session_id === sessionId)
    .map(([name]) => name);
}

/**
 * --index: the session's number in `session list`, counted from 1 (the oldest), as Gemini's own
 * `--resume` counts. The seed's plugin counted from 0; its 0 gets an answer that says which index to use.
 */
function sessionIndex(values: Values): number | undefined {
  if (optionalString(values, "index")?.trim() === "0") {
    throw new UsageError(
      "--index counts from 1, as `session list` shows (1 is the oldest session); for the first session use --index 1.",
    );
  }
  return positiveInteger(values, "index");
}

/** The Gemini session that --index (1 = oldest, as in `list`) or --session-id picks. */
function findGeminiSession(
  values: Values,
  context: ScriptContext,
): { session: GeminiSession; problem: "" } | { session: null; problem: string } {
  const sessions = listGeminiSessions(context.gemini.dotGemini, context.project.root);
  const index = sessionIndex(values);
  if (index !== undefined) {
    const session = sessions[index - 1];
    return session
      ? { session, problem: "" }
      : {
          session: null,
          problem: `This project has ${sessions.length} Gemini session(s); there is no index ${index}. See \`session list\`.`,
        };
  }
  const id = requiredString(values, "session-id");
  const session = sessions.find(
    (candidate) => candidate.sessionId === id || candidate.sessionId.startsWith(id),
  );
  return session
    ? { session, problem: "" }
    : { session: null, problem: `Gemini has no session ${id} in this project. See \`session list\`.` };
}

// ---------------------------------------------------------------- delete / adopt

async function deleteSession(
  values: Values,
  name: string | undefined,
  context: ScriptContext,
): Promise<ScriptOutcome> {
  const { project } = context;
  const sessions = listGeminiSessions(context.gemini.dotGemini, project.root);
  let sessionId: string | null;
  if (name !== undefined) {
    const mapping = readSessionMap(project).sessions[name];
    if (mapping === undefined) return failure("delete", `No session named "${name}" in this project.`);
    sessionId = typeof mapping === "number" ? null : mapping.session_id;
  } else {
    const found = findGeminiSession(values, context);
    if (!found.session) return failure("delete", found.problem);
    sessionId = found.session.sessionId;
  }
  const onDisk = sessionId ? sessions.find((session) => session.sessionId === sessionId) : undefined;
  let deletedFromGemini = false;
  if (onDisk) {
    prepareGeminiEnvironment(context.gemini);
    const timeoutMs = seconds(values, "timeout", DELETE_TIMEOUT_SECONDS) * 1000;
    const run = await runProcess(
      (context.geminiBin as { path: string }).path,
      ["--delete-session", onDisk.sessionId],
      {
        cwd: project.root,
        env: context.gemini.env,
        timeoutMs,
      },
    );
    const left = listGeminiSessions(context.gemini.dotGemini, project.root).some(
      (s) => s.sessionId === onDisk.sessionId,
    );
    if (left) {
      const why = run.timedOut
        ? `Gemini did not finish deleting within ${timeoutMs / 1000} s`
        : `gemini --delete-session exited with ${run.exitCode}: ${run.stderr.trim().split("\n").at(-1) ?? ""}`;
      return failure("delete", `${why}; the session is still there.`, { session_id: onDisk.sessionId });
    }
    deletedFromGemini = true;
  }
  const removedNames = await updateSessionMap(project, (map) => {
    const removed = Object.entries(map.sessions)
      .filter(
        ([each, mapping]) =>
          each === name || (sessionId && typeof mapping === "object" && mapping.session_id === sessionId),
      )
      .map(([each]) => each);
    for (const each of removed) delete map.sessions[each];
    return removed;
  });
  return {
    exitCode: EXIT.ok,
    output: {
      success: true,
      action: "delete",
      session_id: sessionId,
      deleted_from_gemini: deletedFromGemini,
      files_removed: onDisk?.files ?? [],
      removed_names: removedNames.sort(),
      error: null,
    },
  };
}

async function adopt(values: Values, name: string, context: ScriptContext): Promise<ScriptOutcome> {
  const found = findGeminiSession(values, context);
  if (!found.session) return failure("adopt", found.problem);
  const session = found.session;
  const map = readSessionMap(context.project);
  const taken = map.sessions[name];
  if (taken !== undefined && typeof taken === "object" && taken.session_id !== session.sessionId) {
    return failure("adopt", `The name "${name}" is already used for session ${taken.session_id}.`);
  }
  ensureProject(context.layout, context.project);
  await updateSessionMap(context.project, (current) => {
    current.sessions[name] = mappingForSession(session);
  });
  const turnsSaved = saveSessionAnswers(context.project, session);
  return {
    exitCode: EXIT.ok,
    output: {
      success: true,
      action: "adopt",
      session: { name, session_id: session.sessionId, health: "healthy", turns: session.turns },
      replaced_legacy: typeof taken === "number",
      turns_saved: turnsSaved,
      error: null,
    },
  };
}
