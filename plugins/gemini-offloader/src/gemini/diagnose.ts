/** Why a call to Gemini failed, in words an agent can act on. */
export const DIAGNOSTIC_TYPES = [
  "timeout",
  "rate_limit",
  "auth",
  "stale_session",
  "untrusted_workspace",
  "unknown",
] as const;
export type DiagnosticType = (typeof DIAGNOSTIC_TYPES)[number];

export interface Diagnostic {
  type: DiagnosticType;
  message: string;
  suggestion: string;
  /** Gemini's exit code (null when it was killed on timeout). */
  gemini_exit_code: number | null;
  /** The API's HTTP status, when Gemini reported one. */
  http_status: number | null;
}

/** The scripts' exit codes. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  rateLimited: 75,
  auth: 77,
  timeout: 124,
} as const;

export function exitCodeFor(diagnostic: Diagnostic): number {
  switch (diagnostic.type) {
    case "timeout":
      return EXIT.timeout;
    case "rate_limit":
      return EXIT.rateLimited;
    case "auth":
      return EXIT.auth;
    default:
      return EXIT.failure;
  }
}

const SUGGESTIONS: Record<DiagnosticType, string> = {
  timeout:
    "Gemini was stopped (its whole process group) when the timeout ran out. Retry once with a larger --timeout (keep the Bash tool's timeout above it), a narrower prompt or fewer --include-dirs.",
  rate_limit:
    "Gemini's rate limit or quota was hit. Wait about a minute before one retry, or pass a different --model; do not retry in a loop.",
  auth: "Gemini rejected or lacks credentials. Ask the user to run `gemini` once interactively to sign in, or to set a valid GEMINI_API_KEY.",
  stale_session:
    "The Gemini session behind this name no longer exists. Run `session list`, then `session delete --name <name>` and start again with `session create`.",
  untrusted_workspace:
    "Gemini does not trust this folder for headless runs. Ask the user to run `gemini` in it once and trust it, or to set GEMINI_CLI_TRUST_WORKSPACE=true.",
  unknown:
    "Read the message. Retry once with a simpler prompt; if it fails again, report the message to the user.",
};

export function makeDiagnostic(
  type: DiagnosticType,
  message: string,
  details: { exitCode?: number | null; httpStatus?: number | null } = {},
): Diagnostic {
  return {
    type,
    message,
    suggestion: SUGGESTIONS[type],
    gemini_exit_code: details.exitCode ?? null,
    http_status: details.httpStatus ?? null,
  };
}

export function timeoutDiagnostic(timeoutMs: number): Diagnostic {
  return makeDiagnostic("timeout", `Gemini did not answer within ${formatSeconds(timeoutMs)} s.`);
}

interface GeminiErrorReport {
  sessionId: string | null;
  message: string | null;
  code: number | null;
  status: string | null;
}

/** Classifies a failed Gemini run from its exit code and stderr (where `-o json` reports errors). */
export function diagnoseFailure(exitCode: number | null, stderr: string): Diagnostic {
  const report = readErrorReport(stderr);
  const httpStatus = report.code !== null && report.code >= 100 && report.code < 600 ? report.code : null;
  const resumeError = /^.*Error resuming session.*$/m.exec(stderr)?.[0].trim();
  const message =
    report.message ?? resumeError ?? lastMeaningfulLine(stderr) ?? `Gemini exited with code ${exitCode}.`;
  const details = { exitCode, httpStatus };
  const said = `${report.status ?? ""} ${message}`;

  if (/Error resuming session|Invalid session identifier|No previous sessions? found/i.test(stderr)) {
    return makeDiagnostic("stale_session", message, details);
  }
  if (httpStatus === 429 || /RESOURCE_EXHAUSTED|quota|rate.?limit|too many requests/i.test(said)) {
    return makeDiagnostic("rate_limit", message, details);
  }
  if (
    httpStatus === 401 ||
    httpStatus === 403 ||
    exitCode === 41 ||
    /UNAUTHENTICATED|PERMISSION_DENIED|API key not valid|API_KEY_INVALID|invalid api key|auth method|login required/i.test(
      said,
    )
  ) {
    return makeDiagnostic("auth", message, details);
  }
  if (
    exitCode === 55 ||
    /untrusted|not trusted|not running in a trusted directory/i.test(`${said} ${stderr}`)
  ) {
    return makeDiagnostic("untrusted_workspace", message, details);
  }
  return makeDiagnostic("unknown", message, details);
}

/**
 * Gemini's `-o json` error report is the last JSON object on stderr:
 * `{"session_id", "error": {"type", "message", "code"}}`; the message may itself be the API's
 * JSON error body.
 */
export function readErrorReport(stderr: string): GeminiErrorReport {
  const report: GeminiErrorReport = { sessionId: null, message: null, code: null, status: null };
  const parsed = lastJsonObject(stderr) as {
    session_id?: unknown;
    error?: { message?: unknown; code?: unknown };
  } | null;
  if (!parsed?.error) return report;
  report.sessionId = typeof parsed.session_id === "string" ? parsed.session_id : null;
  report.code = typeof parsed.error.code === "number" ? parsed.error.code : null;
  const message = typeof parsed.error.message === "string" ? parsed.error.message : null;
  report.message = message;
  if (message?.trim().startsWith("{")) {
    try {
      const inner = JSON.parse(message) as {
        error?: { message?: unknown; code?: unknown; status?: unknown };
      };
      if (typeof inner.error?.message === "string") report.message = inner.error.message;
      if (typeof inner.error?.status === "string") report.status = inner.error.status;
      if (report.code === null && typeof inner.error?.code === "number") report.code = inner.error.code;
    } catch {
      // Not JSON after all: keep the message as it is.
    }
  }
  return report;
}

function lastJsonObject(text: string): unknown {
  const starts: number[] = [];
  if (text.startsWith("{")) starts.push(0);
  for (let at = text.indexOf("\n{"); at !== -1; at = text.indexOf("\n{", at + 1)) starts.push(at + 1);
  for (const start of starts.reverse()) {
    try {
      return JSON.parse(text.slice(start));
    } catch {
      // Not where the report starts: try an earlier brace.
    }
  }
  return null;
}

function lastMeaningfulLine(text: string): string | null {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("at ") && !/^Warning: |Ripgrep is not available/.test(line));
  return lines.at(-1) ?? null;
}

export function formatSeconds(ms: number): string {
  return Number.isInteger(ms / 1000) ? String(ms / 1000) : (ms / 1000).toFixed(1);
}
