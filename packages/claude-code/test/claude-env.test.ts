import { existsSync } from "node:fs";
import { createSandbox, RUN_MARKER_ENV, stableLocale } from "@evals/core/process";
import { describe, expect, it } from "vitest";
import { hermeticEnv } from "../src/claude-env.js";

describe("hermeticEnv", () => {
  const sandbox = createSandbox("env-test");
  const parentEnv = {
    PATH: "/usr/bin",
    LANG: "de_DE.UTF-8",
    TZ: "Europe/Berlin",
    npm_config_update_notifier: "true",
    HOME: "/home/real",
    CLAUDE_CONFIG_DIR: "/home/real/.claude",
    ANTHROPIC_BASE_URL: "https://example.invalid",
    CLAUDE_CODE_USE_BEDROCK: "1",
    AWS_SECRET_ACCESS_KEY: "secret",
    FORCE_COLOR: "3",
    XDG_CONFIG_HOME: "/home/real/.config",
    NODE_EXTRA_CA_CERTS: "/etc/ssl/certs/ca-certificates.crt",
    HTTPS_PROXY: "http://proxy.invalid:3128",
  };

  it("keeps only PATH and the like from the caller, and isolates config, home and tmp", () => {
    const env = hermeticEnv({ sandbox, runId: "r1", outputRoot: "/out", marker: "m1", parentEnv });
    expect(env.PATH).toBe("/usr/bin");
    // The caller's locale and time zone give way to fixed ones, the same on every machine.
    expect(env.LANG).toBe(stableLocale());
    expect(env.LC_ALL).toBe(stableLocale());
    expect(env.TZ).toBe("UTC");
    expect(env.npm_config_update_notifier).toBe("false");
    expect(env.HOME).toBe(sandbox.home);
    expect(env.CLAUDE_CONFIG_DIR).toBe(sandbox.configDir);
    expect(env.TMPDIR).toBe(sandbox.tmpDir);
    expect(env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC).toBe("1");
    expect(env.FORCE_COLOR).toBe("0");
    expect(env.TEST_MODE).toBe("true");
    expect(env.TEST_RUN_ID).toBe("r1");
    expect(env.EVALS_OUTPUT_DIR).toBe("/out");
    expect(env[RUN_MARKER_ENV]).toBe("m1");
    for (const leaked of [
      "ANTHROPIC_BASE_URL",
      "CLAUDE_CODE_USE_BEDROCK",
      "AWS_SECRET_ACCESS_KEY",
      "XDG_CONFIG_HOME",
    ]) {
      expect(env[leaked], leaked).toBeUndefined();
    }
    expect(existsSync(sandbox.configDir) && existsSync(sandbox.home) && existsSync(sandbox.tmpDir)).toBe(
      true,
    );
  });

  it("points the CLI at a base url with a dummy key, and lets the caller's env have the last word", () => {
    const env = hermeticEnv({
      sandbox,
      runId: "r1",
      outputRoot: "/out",
      marker: "m1",
      parentEnv,
      baseUrl: "http://127.0.0.1:9",
      isSandbox: true,
      env: { CLAUDE_CODE_MAX_RETRIES: "1", FORCE_COLOR: undefined },
    });
    expect(env.ANTHROPIC_BASE_URL).toBe("http://127.0.0.1:9");
    expect(env.ANTHROPIC_API_KEY).toBe("sk-evals-offline");
    expect(env.IS_SANDBOX).toBe("1");
    expect(env.CLAUDE_CODE_MAX_RETRIES).toBe("1");
    // A loopback model needs no certificates or proxies (a proxy could catch its requests).
    expect(env.NODE_EXTRA_CA_CERTS).toBeUndefined();
    expect(env.HTTPS_PROXY).toBeUndefined();
    expect("FORCE_COLOR" in env).toBe(false);
    sandbox.remove();
    expect(existsSync(sandbox.root)).toBe(false);
  });
});

describe("hermeticEnv and stableEnv", () => {
  it("gives way to the caller's env option", () => {
    const sandbox = createSandbox("env-override");
    const env = hermeticEnv({
      sandbox,
      runId: "r2",
      outputRoot: "/out",
      marker: "m2",
      parentEnv: {},
      env: { TZ: "Asia/Tokyo", npm_config_update_notifier: undefined },
    });
    sandbox.remove();
    expect(env.TZ).toBe("Asia/Tokyo");
    expect("npm_config_update_notifier" in env).toBe(false);
  });
});
