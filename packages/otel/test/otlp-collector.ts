import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as the OTLP/HTTP JSON encoding carries it, its attributes made plain values. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code?: number; message?: string };
  service?: string;
}

/**
 * An OTLP/HTTP collector in this process, on 127.0.0.1: it accepts what OTLPTraceExporter posts to
 * `/v1/traces` (JSON) and keeps the spans and the request headers.
 */
export class OtlpCollector {
  readonly spans: CollectedSpan[] = [];
  readonly requests: { path: string; headers: IncomingHttpHeaders }[] = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        this.requests.push({ path: request.url ?? "", headers: request.headers });
        if (request.url !== "/v1/traces" || !String(request.headers["content-type"]).includes("json")) {
          response.writeHead(415).end();
          return;
        }
        this.collect(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private collect(body: OtlpBody): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const resource = plain(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            name: span.name,
            startNs: BigInt(span.startTimeUnixNano),
            endNs: BigInt(span.endTimeUnixNano),
            attributes: plain(span.attributes),
            events: (span.events ?? []).map((event) => ({
              name: event.name,
              attributes: plain(event.attributes),
            })),
            status: span.status ?? {},
            ...(typeof resource["service.name"] === "string" ? { service: resource["service.name"] } : {}),
          });
        }
      }
    }
  }
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpBody {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: OtlpAttribute[];
        events?: { name: string; attributes?: OtlpAttribute[] }[];
        status?: { code?: number; message?: string };
      }[];
    }[];
  }[];
}

function value(raw: OtlpValue): unknown {
  if (raw.stringValue !== undefined) return raw.stringValue;
  if (raw.intValue !== undefined) return Number(raw.intValue);
  if (raw.doubleValue !== undefined) return raw.doubleValue;
  if (raw.boolValue !== undefined) return raw.boolValue;
  if (raw.arrayValue) return (raw.arrayValue.values ?? []).map(value);
  return undefined;
}

function plain(attributes: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map((attribute) => [attribute.key, value(attribute.value)]));
}
