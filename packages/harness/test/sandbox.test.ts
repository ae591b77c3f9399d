import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RUN_MARKER_ENV } from "../src/index.js";
import { createSandbox, hermeticEnv, safeName, stableEnv, stableLocale } from "../src/sandbox.js";

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

describe("stableEnv", () => {
  it("quiets npm and fixes colors, time zone and a locale the platform has", () => {
    expect(stableEnv("linux")).toMatchObject({
      npm_config_update_notifier: "false",
      NO_UPDATE_NOTIFIER: "1",
      npm_config_audit: "false",
      npm_config_fund: "false",
      NO_COLOR: "1",
      FORCE_COLOR: "0",
      TZ: "UTC",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
    });
    expect(stableEnv("darwin").LC_ALL).toBe("en_US.UTF-8");
  });

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

describe("safe names", () => {
  it("keep letters, digits, dashes and underscores", () => {
    expect(safeName("../../etc")).toBe("etc");
  });
});
