import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { worktreeFileFormats, worktreeJsonSchema } from "../src/index.js";

describe("JSON Schemas", () => {
  for (const name of Object.keys(worktreeFileFormats) as (keyof typeof worktreeFileFormats)[]) {
    it(`ships an up-to-date ${name}.json (run \`npm run schemas -w @evals/worktree\` after changing a schema)`, () => {
      const shipped = JSON.parse(readFileSync(new URL(`../schemas/${name}.json`, import.meta.url), "utf8"));
      expect(shipped).toEqual(worktreeJsonSchema(name));
    });

    it(`${name} carries a version`, () => {
      const schema = worktreeJsonSchema(name) as { properties: Record<string, unknown>; required: string[] };
      expect(schema.properties.version).toEqual({ type: "number", const: 1 });
      expect(schema.required).toContain("version");
    });
  }
});
