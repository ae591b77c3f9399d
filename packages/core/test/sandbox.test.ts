import { describe, expect, it } from "vitest";
import { newRunId } from "../src/run-id.js";
import { safeName } from "../src/sandbox.js";
import { applyEnvOverrides, inheritedEnv, stableEnv } from "../src/sandbox-env.js";

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
});

describe("run ids", () => {
  it("are unique, readable and safe as folder names", () => {
    const ids = new Set(Array.from({ length: 50 }, () => newRunId("Lists Files / case #1")));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^lists-files-case-1-\d{8}T\d{9}Z-[0-9a-f]{12}$/);
    expect(safeName("../../etc")).toBe("etc");
  });
});

describe("inheritedEnv / applyEnvOverrides", () => {
  it("takes only INHERITED_ENV and the runner's own names from the caller, and lets the caller have the last word", () => {
    const parent = { PATH: "/bin", SHELL: "/bin/sh", LANG: "C", SECRET: "s3cret", HOME: "/root" };
    expect(inheritedEnv([], parent)).toEqual({ PATH: "/bin", SHELL: "/bin/sh" });
    expect(inheritedEnv(["LANG", "TZ"], parent)).toEqual({ PATH: "/bin", SHELL: "/bin/sh", LANG: "C" });
    const env = applyEnvOverrides({ PATH: "/bin", HOME: "/sandbox" }, { HOME: undefined, EXTRA: "1" });
    expect(env).toEqual({ PATH: "/bin", EXTRA: "1" });
  });
});
