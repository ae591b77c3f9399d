import { parseOptions } from "../cli/args.js";
import type { ScriptOutcome } from "../cli/run-script.js";
import type { ScriptContext } from "../context.js";
import { detectAuth } from "../gemini/auth.js";
import { EXIT } from "../gemini/diagnose.js";
import { prepareGeminiEnvironment } from "../gemini/environment.js";
import { INSTALL_HINT } from "../gemini/locate.js";
import { runProcess } from "../gemini/run-gemini.js";
import { indexStatus, readMemories } from "../memory/memory-store.js";
import { isInitialized } from "../store/locations.js";
import { countByHealth, projectState } from "./project-state.js";
import { defaultTimeout } from "./query.js";

export const STATUS_USAGE = `Usage: node dist/status.js
Gemini's path and version (\`gemini --version\`, at most 20 s), credentials, hermetic mode, the base
folder, this project's cache and named sessions, the memory. Never sends a prompt.
Exit codes: 0 report, 1 Gemini is not installed (see install_hint) or does not run.`;

const VERSION_TIMEOUT_MS = 20_000;

export async function statusCommand(argv: string[], context: ScriptContext): Promise<ScriptOutcome> {
  parseOptions(argv, {});
  const auth = detectAuth(context.env, context.gemini.dotGemini);
  let version: string | null = null;
  let versionError: string | null = null;
  if (context.geminiBin.found) {
    prepareGeminiEnvironment(context.gemini);
    const run = await runProcess(context.geminiBin.path, ["--version"], {
      cwd: context.project.root,
      env: context.gemini.env,
      timeoutMs: VERSION_TIMEOUT_MS,
    });
    const printed = run.stdout.trim().split("\n").at(-1) ?? "";
    if (run.exitCode === 0 && printed) version = printed;
    else
      versionError = run.timedOut
        ? "`gemini --version` did not answer within 20 s."
        : `\`gemini --version\` failed (exit ${run.exitCode}): ${run.stderr.trim().split("\n").at(-1) ?? ""}`;
  }
  const project = projectState(context);
  const store = readMemories(context.layout);
  const installed = context.geminiBin.found;
  const error = !installed ? context.geminiBin.reason : versionError;
  return {
    exitCode: error ? EXIT.failure : EXIT.ok,
    output: {
      success: !error,
      installed,
      gemini: { path: installed ? context.geminiBin.path : null, version },
      authenticated: auth.authenticated,
      auth_method: auth.method,
      ready: installed && version !== null && auth.authenticated,
      hermetic: context.gemini.hermetic,
      gemini_home: context.gemini.home,
      base: { path: context.layout.base, initialized: isInitialized(context.layout) },
      project: {
        path: project.path,
        hash: project.hash,
        cache_entries: project.cache_entries,
        named_sessions: countByHealth(project.named_sessions),
        gemini_sessions: project.gemini_sessions,
      },
      memory: { memories: store.memories.length, index_in_sync: indexStatus(context.layout, store).in_sync },
      default_timeout_seconds: defaultTimeout(context.env),
      ...(installed ? {} : { install_hint: INSTALL_HINT }),
      error,
    },
  };
}
