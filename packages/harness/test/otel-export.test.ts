import { describe, expect, it } from "vitest";
import { otelExportOn } from "../src/index.js";

describe("otelExportOn", () => {
  it("is off unless EVALS_OTEL says 1 or true, or the option turns it on", () => {
    expect(otelExportOn(undefined, {})).toBe(false);
    expect(otelExportOn(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toBe(false);
    expect(otelExportOn(undefined, { EVALS_OTEL: "0" })).toBe(false);
    expect(otelExportOn(undefined, { EVALS_OTEL: "1" })).toBe(true);
    expect(otelExportOn(undefined, { EVALS_OTEL: "TRUE" })).toBe(true);
    expect(otelExportOn(true, {})).toBe(true);
    expect(otelExportOn({ endpoint: "http://127.0.0.1:4318/v1/traces" }, {})).toBe(true);
  });

  it("lets the option win over the environment", () => {
    expect(otelExportOn(false, { EVALS_OTEL: "1" })).toBe(false);
    expect(otelExportOn({}, { EVALS_OTEL: "0" })).toBe(true);
  });
});
