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
import { createRedactor, REDACTED, redactFileSync, redactTreeSync, secretsFromEnv } from "../src/index.js";

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
