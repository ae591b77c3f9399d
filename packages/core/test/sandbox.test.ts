import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { runFromStreamJson } from "../src/index.js";
import { liveRunResult } from "../src/live-run-result.js";
import { createRedactor } from "../src/redact.js";
import { newRunId } from "../src/run-id.js";
import { keepOrRemoveSandbox, safeName } from "../src/sandbox.js";
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

describe("keepOrRemoveSandbox", () => {
  it("keeps a failed run's folder (redacted) by default, deletes a passed one, and obeys always/never", async () => {
    const redactor = createRedactor({ secretEnv: { TOKEN: "hush-hush-secret" } });
    const folder = () => {
      const dir = mkdtempSync(join(tmpdir(), "keep-or-remove-"));
      writeFileSync(join(dir, "log.txt"), "token hush-hush-secret\n");
      return dir;
    };
    const failed = folder();
    expect(keepOrRemoveSandbox(failed, undefined, true, redactor)).toBe(true);
    expect(readFileSync(join(failed, "log.txt"), "utf8")).not.toContain("hush-hush-secret");
    const always = folder();
    expect(keepOrRemoveSandbox(always, "always", false, redactor)).toBe(true);
    const passed = folder();
    const never = folder();
    expect(keepOrRemoveSandbox(passed, "on-failure", false, redactor)).toBe(false);
    expect(keepOrRemoveSandbox(never, "never", true, redactor)).toBe(false);
    await vi.waitFor(() => expect(existsSync(passed) || existsSync(never)).toBe(false));
    for (const dir of [failed, always]) rmSync(dir, { recursive: true, force: true });
  });
});

describe("liveRunResult", () => {
  it("gives every runner's result the same fields, stderr trimmed and cut to its end", () => {
    const run = runFromStreamJson([]);
    const result = liveRunResult({
      runId: "r-1",
      outputDir: "/out/r-1",
      run,
      exitCode: 1,
      timedOut: false,
      entered: performance.now(),
      stderr: `${"x".repeat(30_000)}the last line\n`,
      command: ["agent", "-p"],
      sandboxDir: "/tmp/evals-r-1",
      error: "agent exited with code 1",
    });
    expect(result).toMatchObject({
      run_id: "r-1",
      output_dir: "/out/r-1",
      exit_code: 1,
      timed_out: false,
      origin: "live",
      command: ["agent", "-p"],
      sandbox_dir: "/tmp/evals-r-1",
      error: "agent exited with code 1",
    });
    expect(result.stderr).toHaveLength(20_001);
    expect(result.stderr).toMatch(/^…x+the last line$/);
    const quiet = liveRunResult({
      runId: "r-2",
      outputDir: "/o",
      run,
      exitCode: 0,
      timedOut: false,
      entered: 0,
      stderr: " \n",
      command: [],
    });
    expect(quiet).not.toHaveProperty("stderr");
    expect(quiet).not.toHaveProperty("sandbox_dir");
  });
});
