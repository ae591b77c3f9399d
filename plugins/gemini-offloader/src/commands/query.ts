import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { cacheKey, readCacheEntry, responseFile, sha256, writeCacheEntry } from "../cache/cache-store.js";
import { changedFiles, collectIncludedFiles, MAX_LISTED_FILES, resolveIn } from "../cache/included-files.js";
import {
  commaList,
  optionalString,
  parseOptions,
  positiveInteger,
  requiredString,
  seconds,
  UsageError,
} from "../cli/args.js";
import type { ScriptOutcome } from "../cli/run-script.js";
import { readPipedStdin, stdinLimits } from "../cli/stdin.js";
import { geminiMissing, type ScriptContext } from "../context.js";
import { FORMAT_VERSION } from "../formats.js";
import { type Diagnostic, EXIT, exitCodeFor } from "../gemini/diagnose.js";
import { prepareGeminiEnvironment } from "../gemini/environment.js";
import { runPrompt } from "../gemini/run-gemini.js";
import { ensureProject } from "../store/locations.js";
import { DEFAULT_SUMMARY_CHARS, summarize } from "../summary.js";

// Declared before the usage text, which reads it when the module loads.
export const DEFAULT_TIMEOUT_SECONDS = 90;

export const QUERY_USAGE = `Usage: node dist/query.js --prompt "TEXT" [options]   (piped stdin becomes context)
  -p, --prompt TEXT         the question or task for Gemini (required)
  -m, --model NAME          a Gemini model (default: Gemini's own choice)
  -d, --include-dirs A,B    folders Gemini may read (repeatable); their files key the cache
      --yolo                let Gemini run its tools without asking
  -o, --output FILE         also write the full answer to FILE
  -t, --timeout SECONDS     stop Gemini after this long, exit 124 (default ${defaultTimeoutText()})
      --no-cache            ask Gemini even if a fresh cached answer exists (the new answer is cached)
      --summary-chars N     print at most N characters of the answer (default ${DEFAULT_SUMMARY_CHARS})
Exit codes: 0 answer (fresh or cached), 1 failure (see error/diagnostic), 2 bad arguments,
            75 rate limited, 77 authentication, 124 timeout.`;

function defaultTimeoutText(): string {
  return `${DEFAULT_TIMEOUT_SECONDS} s, or GEMINI_OFFLOADER_TIMEOUT`;
}

/** The default timeout: GEMINI_OFFLOADER_TIMEOUT (seconds) when set and valid, else 90 s. */
export function defaultTimeout(env: NodeJS.ProcessEnv): number {
  const configured = Number(env.GEMINI_OFFLOADER_TIMEOUT);
  return Number.isFinite(configured) && configured >= 1 && configured <= 3600
    ? configured
    : DEFAULT_TIMEOUT_SECONDS;
}

const OPTIONS = {
  prompt: { type: "string", short: "p" },
  model: { type: "string", short: "m" },
  "include-dirs": { type: "string", multiple: true, short: "d" },
  yolo: { type: "boolean" },
  output: { type: "string", short: "o" },
  timeout: { type: "string", short: "t" },
  "no-cache": { type: "boolean" },
  "summary-chars": { type: "string" },
} as const;

/** Every query output has these fields, whatever happened. */
function emptyResult() {
  return {
    success: false,
    response: null as string | null,
    response_chars: 0,
    truncated: false,
    model: null as string | null,
    cached: false,
    stale: false,
    changed_files: [] as string[],
    full_response_path: null as string | null,
    output_file: null as string | null,
    session_id: null as string | null,
    cache_key: null as string | null,
    context_chars: 0,
    context_truncated: false,
    duration_ms: 0,
    diagnostic: null as Diagnostic | null,
    error: null as string | null,
  };
}

export async function queryCommand(argv: string[], context: ScriptContext): Promise<ScriptOutcome> {
  const started = Date.now();
  const { values } = parseOptions(argv, OPTIONS);
  const prompt = requiredString(values, "prompt", " (the question for Gemini)");
  const model = optionalString(values, "model") ?? null;
  const timeoutSeconds = seconds(values, "timeout", defaultTimeout(context.env));
  const summaryChars = positiveInteger(values, "summary-chars", DEFAULT_SUMMARY_CHARS)!;
  const outputOption = optionalString(values, "output");
  const includeDirs = commaList(values, "include-dirs").map((dir) => resolveIn(context.cwd, dir));
  for (const dir of includeDirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new UsageError(`--include-dirs: ${dir} is not a folder.`);
    }
  }
  if (!context.geminiBin.found) return geminiMissing(context.geminiBin, emptyResult());
  const bin = context.geminiBin.path;

  const piped = await readPipedStdin(stdinLimits(context.env));
  const contextText = piped?.text ?? null;
  const { project } = context;
  const key = cacheKey({
    prompt,
    model,
    includeDirs,
    contextSha256: contextText === null ? null : sha256(contextText),
  });
  const included = collectIncludedFiles(project.root, includeDirs, prompt);
  const fullPath = responseFile(project, key);
  const outputFile = outputOption ? resolve(context.cwd, outputOption) : null;
  const result = {
    ...emptyResult(),
    cache_key: key,
    context_chars: contextText?.length ?? 0,
    context_truncated: piped?.truncated ?? false,
  };

  const previous = readCacheEntry(project, key);
  if (previous && previous.files.fingerprint !== included.fingerprint) {
    result.stale = true;
    result.changed_files = changedFiles(previous.files.entries, included.files);
  }
  if (previous && !result.stale && !values["no-cache"]) {
    const response = readFileSync(previous.response_file, "utf8");
    writeOutputFile(outputFile, response);
    return {
      exitCode: EXIT.ok,
      output: {
        ...result,
        ...answerFields(response, summaryChars, previous.response_file),
        success: true,
        model: previous.model_used ?? previous.model,
        cached: true,
        session_id: previous.gemini_session_id,
        output_file: outputFile,
        duration_ms: Date.now() - started,
      },
    };
  }

  prepareGeminiEnvironment(context.gemini);
  const answer = await runPrompt({
    bin,
    cwd: project.root,
    env: context.gemini.env,
    prompt,
    model,
    includeDirs,
    yolo: values.yolo === true,
    context: contextText,
    timeoutMs: timeoutSeconds * 1000,
  });
  if (!answer.ok) return failed(result, answer.diagnostic, answer.sessionId, started);

  ensureProject(context.layout, project);
  writeCacheEntry(
    project,
    {
      version: FORMAT_VERSION,
      key,
      prompt,
      model,
      include_dirs: includeDirs,
      context_sha256: contextText === null ? null : sha256(contextText),
      files: {
        count: included.files.length,
        fingerprint: included.fingerprint,
        entries: included.files.slice(0, MAX_LISTED_FILES),
        truncated: included.truncated,
      },
      created_at: new Date().toISOString(),
      response_file: fullPath,
      response_chars: answer.response.length,
      model_used: answer.model,
      gemini_session_id: answer.sessionId,
    },
    answer.response,
  );
  writeOutputFile(outputFile, answer.response);
  return {
    exitCode: EXIT.ok,
    output: {
      ...result,
      ...answerFields(answer.response, summaryChars, fullPath),
      success: true,
      model: answer.model,
      session_id: answer.sessionId,
      output_file: outputFile,
      duration_ms: Date.now() - started,
    },
  };
}

function answerFields(response: string, summaryChars: number, fullPath: string) {
  const summary = summarize(response, summaryChars, fullPath);
  return {
    response: summary.text,
    response_chars: response.length,
    truncated: summary.truncated,
    full_response_path: fullPath,
  };
}

function failed(
  result: ReturnType<typeof emptyResult>,
  diagnostic: Diagnostic,
  sessionId: string | null,
  started: number,
): ScriptOutcome {
  return {
    exitCode: exitCodeFor(diagnostic),
    output: {
      ...result,
      session_id: sessionId,
      duration_ms: Date.now() - started,
      diagnostic,
      error: `${diagnostic.type}: ${diagnostic.message}`,
    },
  };
}

function writeOutputFile(file: string | null, response: string): void {
  if (!file) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, response);
}
