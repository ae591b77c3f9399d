import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as api from "../src/index.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
/** The evaluators one by one, linked from the README. */
const reference = readFileSync(new URL("../../../docs/evaluators-reference.md", import.meta.url), "utf8");

describe("the README", () => {
  it("links to a reference page with a section and an example for every evaluator", () => {
    expect(readme).toContain("(../../docs/evaluators-reference.md)");
    for (const id of api.EVALUATOR_IDS) {
      const section = reference.split(/^### /m).find((part) => part.startsWith(`${id} `));
      expect(section, id).toBeDefined();
      expect(section, id).toContain("```ts");
    }
  });

  it("lists the rules as they declare themselves (rulesMarkdown)", () => {
    const table = /<!-- rules:start -->\n([\s\S]*?)\n<!-- rules:end -->/.exec(readme)?.[1];
    // Compared cell by cell: the formatter pads the table's columns.
    const cells = (text: string | undefined) =>
      (text ?? "")
        .split("\n")
        .map((line) => line.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/^-+$/, "-")));
    expect(cells(table)).toEqual(cells(api.rulesMarkdown(api.defaultRuleRegistry)));
  });

  it("names only functions the package exports", () => {
    // `fn(`, `await fn(` and `(await fn(`: the async API is shown awaited.
    const named = [...`${readme}${reference}`.matchAll(/`\(?(?:await )?([a-z][A-Za-z]+)\(/g)].map(
      (match) => match[1] as string,
    );
    expect(named.length).toBeGreaterThan(20);
    for (const name of new Set(named)) expect(api, name).toHaveProperty(name);
  });
});
