import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { findOpenCode } from "../src/bin.js";
import { parseJsLiteral } from "../src/js-literal.js";
import { snapshotLiteral } from "../src/models-db.js";

// The models file is read out of the opencode binary as data, never evaluated: the parser must give what
// evaluating the literal would (checked here against node:vm on the real binary's entries) and refuse code.
describe("parseJsLiteral", () => {
  it("reads the real opencode binary's provider entries exactly as evaluating them would", () => {
    const bin = findOpenCode();
    for (const provider of ["anthropic", "openai", "google", "amazon-bedrock", "openrouter", "groq"]) {
      const literal = snapshotLiteral(bin, provider);
      expect(literal, provider).toBeTruthy();
      const evaluated = runInNewContext(`(${literal})`, Object.create(null), { timeout: 2000 }) as unknown;
      expect(JSON.stringify(parseJsLiteral(literal as string)), provider).toBe(JSON.stringify(evaluated));
    }
  }, 60_000);

  it("reads minified plain data: keys, strings with escapes, numbers, !0/!1, void 0", () => {
    const source =
      "{id:\"a\",'q k':'it\\'s',t:`x`,1:1.5,n:-2e3,h:0x1f,d:.5,on:!0,off:!1,no:null,gone:void 0," +
      'list:[1,"two",!0,void 0,{}],s:"\\u00e9\\x41\\n\\t\\\\\\"\\u{1F600}"}';
    const evaluated = runInNewContext(`(${source})`, Object.create(null)) as unknown;
    expect(JSON.stringify(parseJsLiteral(source))).toBe(JSON.stringify(evaluated));
    // "__proto__" stays plain data: an own key, never the object's prototype.
    const parsed = parseJsLiteral("{__proto__:{polluted:1}}") as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, "__proto__")).toBe(true);
  });

  it("refuses anything that would run code or is not plain data", () => {
    for (const source of [
      "{a:f()}",
      "{a:globalThis}",
      "{...x}",
      "{[k]:1}",
      "{get a(){return 1}}",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template with a substitution, as source text
      "{a:`${process.exit()}`}",
      "{a:1}+1",
      "{a:(1)}",
      "{a:new Date()}",
      '{a:"unterminated}',
      "{a:1",
    ]) {
      expect(() => parseJsLiteral(source), source).toThrow(/not a plain-data literal/);
    }
  });
});
