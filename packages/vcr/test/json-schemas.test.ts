import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { vcrFileFormats, vcrJsonSchemaFor } from "../src/index.js";

describe("JSON Schemas", () => {
  for (const name of Object.keys(vcrFileFormats) as Array<keyof typeof vcrFileFormats>) {
    it(`ships an up-to-date ${name}.json (run \`npm run schemas -w @evals/vcr\` after changing a schema)`, () => {
      const shipped = JSON.parse(readFileSync(new URL(`../schemas/${name}.json`, import.meta.url), "utf8"));
      expect(shipped).toEqual(vcrJsonSchemaFor(name));
    });

    it(`requires a version and a format in ${name}`, () => {
      const schema = vcrJsonSchemaFor(name) as { properties: Record<string, unknown>; required: string[] };
      expect(schema.required).toEqual(expect.arrayContaining(["version", "format"]));
    });
  }
});
