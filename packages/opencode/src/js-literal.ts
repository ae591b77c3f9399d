/**
 * Parses a JavaScript value literal of plain data, as a minifier writes one (`{id:"a",n:1.5,on:!0,
 * list:["x"]}`), without executing anything: objects (identifier, string or number keys), arrays,
 * strings ('…', "…" or `…` without `${`), numbers, `!0`/`!1`, true, false, null, `void 0`. Anything
 * else (a call, a spread, a computed key, a getter) throws: the caller then does without the value.
 */
export function parseJsLiteral(source: string): unknown {
  const parser = new LiteralParser(source);
  const value = parser.value();
  parser.end();
  return value;
}

class LiteralParser {
  private at = 0;
  constructor(private readonly text: string) {}

  end(): void {
    this.space();
    if (this.at < this.text.length) this.fail("text after the value");
  }

  value(): unknown {
    this.space();
    const c = this.text[this.at];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"' || c === "'" || c === "`") return this.string();
    if (c === "!" && /^![01](?![\w$])/.test(this.text.slice(this.at, this.at + 3))) {
      this.at += 2;
      return this.text[this.at - 1] === "0";
    }
    const word = /^(?:true|false|null|void 0)(?![\w$])/.exec(this.text.slice(this.at, this.at + 6))?.[0];
    if (word) {
      this.at += word.length;
      return word === "true" ? true : word === "false" ? false : word === "null" ? null : undefined;
    }
    return this.number();
  }

  private object(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    this.at++;
    for (this.space(); this.text[this.at] !== "}"; this.space()) {
      const c = this.text[this.at];
      const key =
        c === '"' || c === "'" || c === "`"
          ? this.string()
          : /[0-9.]/.test(c ?? "")
            ? String(this.number())
            : this.identifier();
      this.space();
      this.expect(":");
      const value = this.value();
      // Own data property, even for "__proto__" (as a literal with a quoted key would not be).
      if (value !== undefined)
        Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
      this.space();
      if (this.text[this.at] === ",") this.at++;
      else if (this.text[this.at] !== "}") this.fail("',' or '}'");
    }
    this.at++;
    return result;
  }

  private array(): unknown[] {
    const result: unknown[] = [];
    this.at++;
    for (this.space(); this.text[this.at] !== "]"; this.space()) {
      const value = this.value();
      result.push(value === undefined ? null : value);
      this.space();
      if (this.text[this.at] === ",") this.at++;
      else if (this.text[this.at] !== "]") this.fail("',' or ']'");
    }
    this.at++;
    return result;
  }

  private string(): string {
    const quote = this.text[this.at++];
    let result = "";
    for (;;) {
      const c = this.text[this.at++];
      if (c === undefined) this.fail("the end of the string");
      if (c === quote) return result;
      if (quote === "`" && c === "$" && this.text[this.at] === "{")
        this.fail("a template without substitutions");
      if (c !== "\\") {
        result += c;
        continue;
      }
      const e = this.text[this.at++];
      const simple: Record<string, string> = {
        n: "\n",
        t: "\t",
        r: "\r",
        b: "\b",
        f: "\f",
        v: "\v",
        "0": "\0",
      };
      if (e === undefined) this.fail("an escape");
      else if (e in simple && !(e === "0" && /[0-9]/.test(this.text[this.at] ?? ""))) result += simple[e];
      else if (e === "x") result += String.fromCharCode(this.hex(2));
      else if (e === "u" && this.text[this.at] === "{") {
        const close = this.text.indexOf("}", this.at);
        const code = /^[0-9a-fA-F]{1,6}$/.test(this.text.slice(this.at + 1, close))
          ? Number.parseInt(this.text.slice(this.at + 1, close), 16)
          : Number.NaN;
        if (!(code <= 0x10ffff)) this.fail("a \\u{…} escape");
        result += String.fromCodePoint(code);
        this.at = close + 1;
      } else if (e === "u") result += String.fromCharCode(this.hex(4));
      else if (e === "\r" && this.text[this.at] === "\n") this.at++;
      else if (e === "\n" || e === "\r" || e === "\u2028" || e === "\u2029") {
        // A line continuation: nothing.
      } else if (/[1-9]/.test(e)) this.fail("no octal escape");
      else result += e;
    }
  }

  private hex(length: number): number {
    const digits = this.text.slice(this.at, this.at + length);
    if (!new RegExp(`^[0-9a-fA-F]{${length}}$`).test(digits)) this.fail(`${length} hex digits`);
    this.at += length;
    return Number.parseInt(digits, 16);
  }

  private number(): number {
    const match = /^-?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(?![\w$])/.exec(
      this.text.slice(this.at, this.at + 64),
    )?.[0];
    if (!match) this.fail("a value");
    this.at += match.length;
    const value = Number(match);
    if (Number.isNaN(value)) this.fail("a number");
    return value;
  }

  private identifier(): string {
    const match = /^[A-Za-z_$][\w$]*/.exec(this.text.slice(this.at, this.at + 256))?.[0];
    if (!match) this.fail("a key");
    this.at += match.length;
    return match;
  }

  private expect(c: string): void {
    if (this.text[this.at] !== c) this.fail(`'${c}'`);
    this.at++;
  }

  private space(): void {
    while (/\s/.test(this.text[this.at] ?? "")) this.at++;
  }

  private fail(expected: string): never {
    throw new Error(`not a plain-data literal at ${this.at}: expected ${expected}`);
  }
}
