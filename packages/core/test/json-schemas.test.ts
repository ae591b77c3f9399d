import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fileFormats, jsonSchemaFor } from "../src/index.js";

describe("JSON Schemas", () => {
  for (const name of Object.keys(fileFormats) as (keyof typeof fileFormats)[]) {
    it(`ships an up-to-date ${name}.json (run \`npm run schemas -w @evals/core\` after changing a schema)`, () => {
      const shipped = JSON.parse(readFileSync(new URL(`../schemas/${name}.json`, import.meta.url), "utf8"));
      expect(shipped).toEqual(jsonSchemaFor(name));
    });
  }

  it("carries a version in every versioned format", () => {
    for (const name of ["captured-event", "run", "evaluator-result", "run-folder"] as const) {
      const schema = jsonSchemaFor(name) as { properties: Record<string, unknown>; required: string[] };
      expect(schema.properties.version).toBeDefined();
      expect(schema.required).toContain("version");
    }
  });
});
