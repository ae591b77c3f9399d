import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createRedactor,
  REDACTED,
  redactFileSync,
  redactTreeSync,
  rememberSecrets,
  secretsFromEnv,
} from "../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("secretsFromEnv", () => {
  it("takes the values of secret-looking names and of ANTHROPIC_CUSTOM_HEADERS, not paths or flags", () => {
    expect(
      secretsFromEnv({
        GITHUB_TOKEN: "gh-token-value-1",
        MY_DB_PASSWORD: "hunter2hunter2",
        AWS_SECRET_ACCESS_KEY: "aws-secret-value",
        SERVICE_CREDENTIALS: "credential-value",
        NODE_AUTH_TOKEN: "npm-auth-value-9",
        ANTHROPIC_CUSTOM_HEADERS: "X-Team: team-header-value\nX-Other: other-header-value",
        PATH: "/usr/bin:/bin",
        SSH_AUTH_SOCK: "/tmp/ssh-agent.sock",
        API_KEY_ENABLED: "true",
        SHORT_TOKEN: "abc",
        HOME: "not-a-secret-name",
      }).sort(),
    ).toEqual(
      [
        "gh-token-value-1",
        "hunter2hunter2",
        "aws-secret-value",
        "credential-value",
        "npm-auth-value-9",
        "team-header-value",
        "other-header-value",
      ].sort(),
    );
  });
});

describe("createRedactor", () => {
  it("removes token formats, env secrets (also JSON-escaped), own patterns, and custom header values", () => {
    const redactor = createRedactor({
      env: { GITHUB_TOKEN: 'tok"en\\value-1', ANTHROPIC_CUSTOM_HEADERS: "X-Team: team-header-value" },
      patterns: [/INTERNAL-\d+/],
    });
    const text = [
      "sk-ant-api03-abcDEF_123",
      "ghp_0123456789abcdefghijABCDEFGHIJ",
      "AKIAABCDEFGHIJKLMNOP",
      'tok"en\\value-1',
      JSON.stringify({ value: 'tok"en\\value-1' }),
      "INTERNAL-42",
      "team-header-value",
    ].join(" ");
    const out = redactor.text(text);
    expect(out).not.toMatch(/sk-ant|ghp_|AKIA|value-1|INTERNAL-42|team-header/);
    expect(out.split(REDACTED).length - 1).toBe(7);
    expect(redactor.headers({ "X-Team": "anything", accept: "json" })).toEqual({
      "X-Team": REDACTED,
      accept: "json",
    });
    expect(redactor.leaks(out)).toEqual([]);
    expect(redactor.leaks("sk-ant-api03-x")).toHaveLength(1);
  });
});

describe("the secret shapes of issue #26", () => {
  const shapes = {
    "a URL's password": ["postgres://app:pw-Secret-1@db:5432/x", "postgres://app:[REDACTED]@db:5432/x"],
    "a Stripe live key": ["key sk_live_51AbCdEfGhIjKlMn", "key [REDACTED]"],
    "an OpenAI project key": ["sk-proj-AbCdEfGhIjKlMnOpQrStUv", "[REDACTED]"],
    "a Slack bot token": ["xoxb-1234-5678-AbCdEfGhIjKl", "[REDACTED]"],
    "a JWT": ["eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeKKF2QT4", "[REDACTED]"],
    "a bearer token": ["Authorization: Bearer abcDEF1234567890", "Authorization: Bearer [REDACTED]"],
    "a NAME=value secret": ['export DEPLOY_TOKEN="deploy-token-1"', 'export DEPLOY_TOKEN="[REDACTED]"'],
    "a PEM key with its END line": [
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEab+/=\n-----END RSA PRIVATE KEY-----\nkept",
      "[REDACTED]\nkept",
    ],
    "a PEM key cut off before END": ["-----BEGIN PRIVATE KEY-----\nMIIEab+/=\nQUJD", "[REDACTED]"],
  } as const;

  for (const [shape, [input, expected]] of Object.entries(shapes)) {
    it(`redacts ${shape}, in a string and JSON-escaped in a JSONL line after a line break`, () => {
      const redactor = createRedactor();
      expect(redactor.text(input)).toBe(expected);
      // In a JSONL file the secret follows an escaped \n, and ends at the string's closing quote.
      const line = JSON.stringify({ out: `first line\n${input}`, next: "kept" });
      const redacted = redactor.text(line);
      expect(JSON.parse(redacted)).toEqual({ out: `first line\n${expected}`, next: "kept" });
      expect(redactor.leaks(redacted)).toEqual([]);
    });
  }

  it("redacts every value of secretEnv, whatever its name, plain, base64 at any alignment and URL-encoded", () => {
    const seed = "seed value/with+chars";
    const redactor = createRedactor({ secretEnv: { SIGNING_SEED: seed, PORT: "8080", HOME: "/home/x" } });
    const base64In = (prefix: string) => Buffer.from(`${prefix}${seed}`).toString("base64");
    for (const text of [
      seed,
      encodeURIComponent(seed),
      Buffer.from(seed).toString("base64"),
      Buffer.from(seed).toString("base64url"),
      base64In("u:"),
      base64In("us:"),
      base64In("use:"),
    ]) {
      expect(redactor.text(text)).toContain(REDACTED);
      expect(redactor.text(text)).not.toContain(text.slice(4, -4));
    }
    expect(redactor.text("port 8080 at /home/x")).toBe("port 8080 at /home/x");
  });

  it("remembers a run's secrets for every later redactor of the process", () => {
    const secret = `remembered-${Math.random().toString(36).slice(2)}`;
    expect(createRedactor().text(secret)).toBe(secret);
    rememberSecrets({ secretEnv: { ANY_NAME: secret } });
    expect(createRedactor().text(`x ${secret} y`)).toBe(`x ${REDACTED} y`);
  });
});

describe("redactTreeSync", () => {
  it("rewrites the files that hold secrets, byte for byte otherwise, and never follows links", () => {
    const dir = mkdtempSync(join(tmpdir(), "core-redact-"));
    const outside = mkdtempSync(join(tmpdir(), "core-redact-outside-"));
    dirs.push(dir, outside);
    mkdirSync(join(dir, "nested"));
    writeFileSync(join(dir, "nested", "events.jsonl"), '{"out":"key=sk-ant-api03-SECRET é"}\n');
    writeFileSync(join(dir, "clean.txt"), "nothing here\n");
    writeFileSync(join(outside, "target.txt"), "sk-ant-api03-OUTSIDE\n");
    symlinkSync(join(outside, "target.txt"), join(dir, "link.txt"));
    const changed = redactTreeSync(dir, createRedactor());
    expect(changed).toEqual([join(dir, "nested", "events.jsonl")]);
    expect(readFileSync(join(dir, "nested", "events.jsonl"), "utf8")).toBe('{"out":"key=[REDACTED] é"}\n');
    expect(readFileSync(join(outside, "target.txt"), "utf8")).toBe("sk-ant-api03-OUTSIDE\n");
  });

  it("keeps a rewritten file's mode and non-UTF-8 bytes, and leaves no temporary file", () => {
    const dir = mkdtempSync(join(tmpdir(), "core-redact-"));
    dirs.push(dir);
    const file = join(dir, "hook.sh");
    writeFileSync(
      file,
      Buffer.concat([Buffer.from("KEY=sk-ant-api03-SECRET "), Buffer.from([0xff, 0xfe, 0x0a])]),
    );
    chmodSync(file, 0o750);
    expect(redactFileSync(file, createRedactor())).toBe(true);
    expect(readFileSync(file)).toEqual(
      Buffer.concat([Buffer.from(`KEY=${REDACTED} `), Buffer.from([0xff, 0xfe, 0x0a])]),
    );
    expect(statSync(file).mode & 0o777).toBe(0o750);
    expect(readdirSync(dir)).toEqual(["hook.sh"]);
  });
});
