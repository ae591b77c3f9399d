/** Defined by the build (tsup.config.ts) and the tests (vitest.config.ts): see scripts/report-client-bundle.ts. */
declare const __EVALS_REPORT_CLIENT__: string | undefined;

/** The HTML report's browser script (src/report-client), bundled into one IIFE by the build. */
export function reportClientScript(): string {
  if (typeof __EVALS_REPORT_CLIENT__ !== "string") {
    throw new Error(
      "@evals/logging: the HTML report's script was not bundled in: load the package as built by its tsup config (dist/)",
    );
  }
  return __EVALS_REPORT_CLIENT__;
}
