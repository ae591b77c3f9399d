/**
 * The environment of a sandboxed agent CLI: what it inherits from the caller (nothing but the names
 * listed here and the runner's own), what makes its tools' output stable, and the caller's last word.
 */

/**
 * Variables a run inherits from the caller's environment; everything else is left out. The locale and
 * the time zone are not inherited: STABLE_ENV fixes them.
 */
export const INHERITED_ENV = ["PATH", "SHELL", "USER", "LOGNAME"] as const;

/**
 * The caller's values of INHERITED_ENV and of the runner's own `also` names (those it has set);
 * nothing else of its environment.
 */
export function inheritedEnv(
  also: readonly string[] = [],
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...INHERITED_ENV, ...also]) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * The caller's last word over a run's environment (a case's `env`): each value is set, each
 * `undefined` removes the variable. Changes `env` and returns it.
 */
export function applyEnvOverrides(
  env: Record<string, string>,
  overrides: Record<string, string | undefined> = {},
): Record<string, string> {
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/**
 * A locale that exists where the run happens: C.UTF-8 is built into glibc and musl (a minimal
 * container has no other), macOS has no C.UTF-8 but always has en_US.UTF-8. A missing locale would
 * itself add noise (bash: "warning: setlocale: LC_ALL: cannot change locale").
 */
export function stableLocale(platform: NodeJS.Platform = process.platform): string {
  return platform === "darwin" ? "en_US.UTF-8" : "C.UTF-8";
}

/**
 * What makes the agent's tools print the same thing on every run and every machine, so that a
 * recording replays: the CLI passes its environment on to Bash and to hooks, and a replay matches
 * each request, tool outputs included. Each entry is here for something that changed tool output:
 *
 * - npm's update check: under a fresh HOME npm asks the registry for its latest version on every
 *   run and prints "New minor version of npm available! …" when there is one (it depends on the
 *   day and the network): `npm_config_update_notifier=false`. `NO_UPDATE_NOTIFIER` is the same
 *   switch for the `update-notifier` package most other Node CLIs use.
 * - npm's install epilogue: "found N vulnerabilities" comes from the registry's advisories of the
 *   day (`npm_config_audit=false`), "N packages are looking for funding" from package metadata
 *   (`npm_config_fund=false`).
 * - First-run telemetry notices of other tools under a fresh HOME: `DO_NOT_TRACK=1`.
 * - Colors: `NO_COLOR=1` and `FORCE_COLOR=0` (Nx and others set FORCE_COLOR for their children).
 * - Dates and sorting: `TZ=UTC` (`date`, `ls -l`, `git log` print local times), `LANG`/`LC_ALL`
 *   (messages, collation, number formats).
 * - The CLI itself: `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` (no telemetry, no `/api/hello`,
 *   no update check: a loopback run makes exactly one connection) and `DISABLE_AUTOUPDATER=1` (the
 *   CLI never replaces itself between the runs of a suite).
 *
 * The caller's `env` option still has the last word over each of them.
 */
export function stableEnv(platform: NodeJS.Platform = process.platform): Record<string, string> {
  const locale = stableLocale(platform);
  return {
    npm_config_update_notifier: "false",
    NO_UPDATE_NOTIFIER: "1",
    npm_config_audit: "false",
    npm_config_fund: "false",
    DO_NOT_TRACK: "1",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
    TZ: "UTC",
    LANG: locale,
    LC_ALL: locale,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
  };
}

/**
 * Certificates and proxies: inherited only when the run talks to a model that is not on this
 * machine. A loopback run needs neither (a proxy could even catch its loopback requests), and
 * NODE_EXTRA_CA_CERTS alone costs every Node hook process about 100 ms of CPU at start.
 */
export const NETWORK_ENV = [
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
] as const;

/** Whether the URL is on this machine (127.0.0.1, localhost, ::1). */
export function isLoopbackUrl(url: string): boolean {
  try {
    const { hostname } = new URL(url);
    return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]" || hostname === "::1";
  } catch {
    return false;
  }
}
