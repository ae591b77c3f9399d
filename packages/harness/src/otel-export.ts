import type { RedactOptions } from "@evals/core";
import type { CaseResult } from "@evals/logging";

/**
 * OpenTelemetry export of eval cases: true (or settings) turns it on, false off; undefined follows
 * EVALS_OTEL=1. The export itself is @evals/otel's, imported only when on.
 */
export type OtelOption =
  | boolean
  | {
      /** The OTLP/HTTP traces URL (default: the OTEL_EXPORTER_OTLP_* environment variables). */
      endpoint?: string;
      /** Headers of each export request (default: OTEL_EXPORTER_OTLP_HEADERS). */
      headers?: Record<string, string>;
      /** The traces' `service.name` (default: OTEL_SERVICE_NAME, else "evals"). */
      serviceName?: string;
      /** More secrets to remove from what is exported (tool arguments and results are redacted). */
      redact?: RedactOptions;
    };

/** Whether cases are exported: the option when it is given, else EVALS_OTEL=1 (or "true"). */
export function otelExportOn(option: OtelOption | undefined, env = process.env): boolean {
  if (option !== undefined) return option !== false;
  return env.EVALS_OTEL === "1" || env.EVALS_OTEL?.toLowerCase() === "true";
}

interface OtelModule {
  exportCaseTrace(
    result: CaseResult,
    options: Exclude<OtelOption, boolean> & { endTime?: number; trialStartTimes?: number[] },
  ): Promise<void>;
}

let loaded: Promise<OtelModule> | undefined;
let warned = false;

/**
 * Exports a decided case as a trace. Never throws: an eval does not fail because its trace could not
 * be sent (a warning says so, once).
 */
export async function exportCaseToOtel(
  result: CaseResult,
  option: OtelOption | undefined,
  timing: { endTime: number; trialStartTimes: number[] },
): Promise<void> {
  try {
    // Named at run time: the harness does not depend on @evals/otel (which depends on it to test).
    const specifier = "@evals/otel";
    loaded ??= import(specifier) as Promise<OtelModule>;
    const otel = await loaded;
    await otel.exportCaseTrace(result, { ...(typeof option === "object" ? option : {}), ...timing });
  } catch (error) {
    if (warned) return;
    warned = true;
    process.emitWarning(
      `OpenTelemetry export is on (EVALS_OTEL or the otel option) but failed; install @evals/otel as a dev dependency: ${(error as Error).message}`,
      "EvalsOtel",
    );
  }
}
