import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  fileFormats,
  formatJsonSchema,
  jsonSchemaFor,
  jsonSchemaOf,
  writeJsonSchemaFiles,
} from "../src/index.js";

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

  it("generates every package's schemas one way: the input side, with $id and title first", () => {
    const schema = z.object({ version: z.literal(1), retries: z.number().default(3), when: z.date() });
    const generated = formatJsonSchema("demo", "thing", schema) as Record<string, unknown> & {
      required: string[];
      properties: Record<string, unknown>;
    };
    expect(Object.keys(generated).slice(0, 3)).toEqual(["$id", "title", "$schema"]);
    expect(generated.$id).toBe("urn:evals:demo:thing");
    // The input side: a defaulted field may be left out of a file.
    expect(generated.required).toEqual(["version", "when"]);
    // A type JSON Schema cannot say (a Date) is allowed rather than thrown on.
    expect(generated.properties.when).toEqual({});
    expect(jsonSchemaOf(schema, { io: "output" })).toMatchObject({
      required: ["version", "retries", "when"],
    });
  });

  it("writes schemas as <name>.json files", () => {
    const folder = mkdtempSync(join(tmpdir(), "evals-schemas-"));
    try {
      writeJsonSchemaFiles(join(folder, "schemas"), { run: jsonSchemaFor("run") });
      const written = readFileSync(join(folder, "schemas", "run.json"), "utf8");
      expect(written).toBe(`${JSON.stringify(jsonSchemaFor("run"), null, 2)}\n`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
