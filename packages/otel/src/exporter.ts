import { createRedactor, type RedactOptions } from "@evals/core";
import type { CaseResult } from "@evals/logging";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from "@opentelemetry/sdk-trace";
import { type CaseTiming, recordCaseSpans } from "./case-spans.js";

/** Where and how the traces go. Unset fields come from the standard OTEL_* environment variables. */
export interface OtelOptions {
  /**
   * The OTLP/HTTP traces URL (e.g. `http://127.0.0.1:4318/v1/traces`). Default:
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`, else the
   * local collector's default port.
   */
  endpoint?: string;
  /** Headers of every export request (default: OTEL_EXPORTER_OTLP_HEADERS, `k=v,k2=v2`). */
  headers?: Record<string, string>;
  /** The `service.name` of the traces (default: OTEL_SERVICE_NAME, else "evals"). */
  serviceName?: string;
  /** More secrets to remove from tool arguments, results and texts (the redactor of @evals/core). */
  redact?: RedactOptions;
  /** Any span exporter instead of OTLP/HTTP (e.g. the SDK's InMemorySpanExporter). */
  exporter?: SpanExporter;
}

/** Sends cases as traces: one trace per case, exported when the case is done. */
export class CaseTraceExporter {
  private readonly provider: TracerProvider;
  private readonly redactOptions: RedactOptions | undefined;

  constructor(options: OtelOptions = {}) {
    const exporter =
      options.exporter ??
      new OTLPTraceExporter({
        ...(options.endpoint ? { url: options.endpoint } : {}),
        ...(options.headers ? { headers: options.headers } : {}),
      });
    this.redactOptions = options.redact;
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({
        "service.name": options.serviceName ?? process.env.OTEL_SERVICE_NAME ?? "evals",
      }),
      spanProcessors: [
        // Flushed after every case: the queue only has to hold one case's spans, however long its runs.
        new BatchSpanProcessor({ exporter: new WarningExporter(exporter), maxQueueSize: 100_000 }),
      ],
    });
  }

  /** Records the case's spans and sends them (resolves once sent, or once sending failed). */
  async exportCase(result: CaseResult, timing: CaseTiming = {}): Promise<void> {
    // Made per case: it reads the secret-looking variables of process.env as they are now.
    const redactor = createRedactor(this.redactOptions ?? {});
    recordCaseSpans(this.provider.getTracer("@evals/otel"), result, redactor, timing);
    await this.provider.forceFlush();
  }

  /** Sends what is left and stops. */
  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}

/** Says once per process, as a warning, that traces could not be sent (the SDK would say nothing). */
class WarningExporter implements SpanExporter {
  private static warned = false;
  constructor(private readonly inner: SpanExporter) {}

  export(...[spans, done]: Parameters<SpanExporter["export"]>): void {
    this.inner.export(spans, (result) => {
      if (result.code !== EXPORT_SUCCESS && !WarningExporter.warned) {
        WarningExporter.warned = true;
        process.emitWarning(
          `could not export eval traces over OTLP: ${result.error?.message ?? "unknown error"}`,
          "EvalsOtel",
        );
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** ExportResultCode.SUCCESS of @opentelemetry/core. */
const EXPORT_SUCCESS = 0;

const exporters = new Map<string, CaseTraceExporter>();

/**
 * Exports one case as a trace through a process-wide exporter per configuration (what describeEval
 * and runCases call when OpenTelemetry export is on).
 */
export function exportCaseTrace(result: CaseResult, options: OtelOptions & CaseTiming = {}): Promise<void> {
  const { endTime, trialStartTimes, ...config } = options;
  if (config.exporter) {
    return new CaseTraceExporter(config).exportCase(result, timingOf(endTime, trialStartTimes));
  }
  const key = JSON.stringify([
    config,
    process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
    process.env.OTEL_EXPORTER_OTLP_HEADERS,
    process.env.OTEL_EXPORTER_OTLP_TRACES_HEADERS,
  ]);
  let exporter = exporters.get(key);
  if (!exporter) {
    exporter = new CaseTraceExporter(config);
    exporters.set(key, exporter);
  }
  return exporter.exportCase(result, timingOf(endTime, trialStartTimes));
}

function timingOf(endTime: number | undefined, trialStartTimes: CaseTiming["trialStartTimes"]): CaseTiming {
  return {
    ...(endTime !== undefined ? { endTime } : {}),
    ...(trialStartTimes ? { trialStartTimes } : {}),
  };
}
