import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { runFolderPath } from "@evals/core";
import { afterAll, describe, expect, it } from "vitest";
import {
  type ClaudeHookCommand,
  type ClaudeSettings,
  DEFAULT_HOOK_EVENTS,
  findDash,
  hookBinPath,
  hookJsonSchemaFor,
  hookSettings,
  hookShellPath,
  httpHookSettings,
  PLUGIN_HOOK_COMMAND,
  pluginHooksFile,
  readEvents,
  STREAM_GAP_HOOK_EVENTS,
  STREAM_GAP_TOOL_MATCHER,
  shellQuote,
  supportsHttpHooks,
  TOOL_HOOK_EVENTS,
  writeHookSettings,
} from "../src/index.js";
import { fixtureHookInputs } from "./fixtures.js";
import { hookBin, runHook, tempDir } from "./spawn-hook.js";

const packageRoot = fileURLToPath(new URL("..", import.meta.url));
const PLUGIN_ROOT_VARIABLE = ["$", "{CLAUDE_PLUGIN_ROOT}"].join("");
const temp = tempDir("settings");
afterAll(temp.cleanup);
const preToolUse = JSON.stringify(
  fixtureHookInputs("multi-tool").find((i) => i.hook_event_name === "PreToolUse"),
);
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));

describe("hookSettings", () => {
  it("registers the built hook for every default event, by absolute paths", () => {
    const settings = hookSettings();
    expect(Object.keys(settings.hooks ?? {})).toEqual([...DEFAULT_HOOK_EVENTS]);
    // The fast shell entry under dash, handing over to this Node when it must.
    const command = `${findDash()} ${hookShellPath()} ${process.execPath}`;
    for (const [event, groups] of Object.entries(settings.hooks ?? {})) {
      const matcher = (TOOL_HOOK_EVENTS as readonly string[]).includes(event) ? { matcher: "*" } : {};
      expect(groups).toEqual([{ ...matcher, hooks: [{ type: "command", command, timeout: 30 }] }]);
    }
    expect(
      (hookSettings({ entry: "node" }).hooks?.Stop?.[0]?.hooks[0] as ClaudeHookCommand | undefined)?.command,
    ).toBe(`${process.execPath} ${hookBinPath()}`);
    expect(hookShellPath()).toBe(join(packageRoot, "bin", "evals-hook.sh"));
    expect(isAbsolute(hookBinPath())).toBe(true);
    expect(hookBinPath()).toBe(join(packageRoot, "dist", "evals-hook.cjs"));
    expect(existsSync(hookBinPath())).toBe(true);
  });

  it("takes events, a command, a node path and a timeout", () => {
    const settings = hookSettings({
      events: ["PreToolUse", "PostToolBatch"],
      node: "/opt/my node/bin/node",
      timeoutSeconds: 5,
      entry: "node",
    });
    expect(Object.keys(settings.hooks ?? {})).toEqual(["PreToolUse", "PostToolBatch"]);
    expect(settings.hooks?.PreToolUse?.[0]?.hooks[0]).toEqual({
      type: "command",
      command: `'/opt/my node/bin/node' ${shellQuote(hookBinPath())}`,
      timeout: 5,
    });
    expect(
      (
        hookSettings({ node: "/opt/my node/bin/node" }).hooks?.Stop?.[0]?.hooks[0] as
          | ClaudeHookCommand
          | undefined
      )?.command,
    ).toBe(`${findDash()} ${shellQuote(hookShellPath())} '/opt/my node/bin/node'`);
    expect(
      (hookSettings({ command: "my-hook" }).hooks?.Stop?.[0]?.hooks[0] as ClaudeHookCommand | undefined)
        ?.command,
    ).toBe("my-hook");
  });

  it("merges into existing settings, keeping their keys and hooks", () => {
    const base: ClaudeSettings = {
      permissions: { allow: ["Bash(ls)"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard.sh" }] }] },
    };
    const settings = hookSettings({ base });
    expect(settings.permissions).toEqual({ allow: ["Bash(ls)"] });
    expect(settings.hooks?.PreToolUse).toHaveLength(2);
    expect(settings.hooks?.PreToolUse?.[0]).toEqual(base.hooks?.PreToolUse?.[0]);
    expect(base.hooks?.PreToolUse).toHaveLength(1);
  });

  it("quotes for the shell only when needed", () => {
    expect(shellQuote("/usr/bin/node")).toBe("/usr/bin/node");
    expect(shellQuote("/a b/it's")).toBe(`'/a b/it'\\''s'`);
    expect(spawnSync("sh", ["-c", `printf %s ${shellQuote("/a b/it's $HOME")}`]).stdout.toString()).toBe(
      "/a b/it's $HOME",
    );
  });
});

describe("writeHookSettings", () => {
  it("writes the settings whole, creating folders, and returns the absolute path", () => {
    const file = writeHookSettings(join(temp.dir, "deep", "er", "settings.json"));
    expect(file).toBe(join(temp.dir, "deep", "er", "settings.json"));
    expect(readJson(file)).toEqual(hookSettings());
    expect(readdirSync(join(temp.dir, "deep", "er"))).toEqual(["settings.json"]);
  });

  it("writes a command that a shell runs as a working capture hook, even from a path with spaces", () => {
    const spaced = join(temp.dir, "node with spaces");
    mkdirSync(spaced);
    symlinkSync(process.execPath, join(spaced, "node"));
    const file = writeHookSettings(join(temp.dir, "spaced.json"), { node: join(spaced, "node") });
    const command = readJson(file).hooks.PreToolUse[0].hooks[0].command as string;
    const root = join(temp.dir, "spaced-root");
    const result = spawnSync("sh", ["-c", command], {
      input: preToolUse,
      env: { PATH: process.env.PATH, TEST_MODE: "true", TEST_RUN_ID: "sh", EVALS_OUTPUT_DIR: root },
    });
    expect(result.status).toBe(0);
    expect(result.stdout.toString()).toBe("");
    return readEvents(runFolderPath("sh", root)).then((events) => expect(events).toHaveLength(1));
  });
});

describe("evals-hook settings (the built CLI)", () => {
  it("writes a settings file with --out", async () => {
    const out = join(temp.dir, "cli", "settings.json");
    const result = await runHook("", {
      args: ["settings", "--out", out, "--events", "PreToolUse, Stop", "--timeout", "7"],
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(out);
    const settings = readJson(out);
    expect(Object.keys(settings.hooks)).toEqual(["PreToolUse", "Stop"]);
    expect(settings.hooks.PreToolUse[0]).toEqual({
      matcher: "*",
      hooks: [
        { type: "command", command: `${findDash()} ${hookShellPath()} ${process.execPath}`, timeout: 7 },
      ],
    });
    const nodeOut = join(temp.dir, "cli", "node-settings.json");
    await runHook("", { args: ["settings", "--out", nodeOut, "--entry", "node"] });
    expect(readJson(nodeOut).hooks.Stop[0].hooks[0].command).toBe(`${process.execPath} ${hookBin}`);
  });

  it("prints the settings without --out, and merges --merge", async () => {
    const base = join(temp.dir, "base.json");
    writeFileSync(
      base,
      JSON.stringify({ model: "x", hooks: { Stop: [{ hooks: [{ type: "command", command: "a" }] }] } }),
    );
    const result = await runHook("", { args: ["settings", "--merge", base] });
    expect(result.code).toBe(0);
    const settings = JSON.parse(result.stdout);
    expect(settings.model).toBe("x");
    expect(settings.hooks.Stop).toHaveLength(2);
    expect(Object.keys(settings.hooks)).toEqual(expect.arrayContaining([...DEFAULT_HOOK_EVENTS]));
  });

  it("refuses bad arguments with a clear message", async () => {
    const unknown = await runHook("", { args: ["settings", "--bogus"] });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/bogus[\s\S]*Usage:/);
    const badTimeout = await runHook("", { args: ["settings", "--timeout", "soon"] });
    expect(badTimeout.code).toBe(1);
    expect(badTimeout.stderr).toMatch(/--timeout must be a positive number of seconds, got soon/);
    const badMerge = await runHook("", { args: ["settings", "--merge", join(temp.dir, "nope.json")] });
    expect(badMerge.code).toBe(1);
    expect(badMerge.stderr).toMatch(/cannot read --merge file/);
    const unknownEvent = await runHook("", { args: ["settings", "--events", "PreToolUse,PreCompact"] });
    expect(unknownEvent.code).toBe(0);
    expect(unknownEvent.stderr).toMatch(/registering events the readers do not know: PreCompact/);
    expect(Object.keys(JSON.parse(unknownEvent.stdout).hooks)).toEqual(["PreToolUse", "PreCompact"]);
    const help = await runHook("", { args: ["help"] });
    expect(help.stdout).toMatch(/evals-hook settings \[options\]/);
  });
});

describe("the plugin layout", () => {
  it("has a valid .claude-plugin/plugin.json matching the package", () => {
    const manifest = readJson(join(packageRoot, ".claude-plugin", "plugin.json"));
    const pkg = readJson(join(packageRoot, "package.json"));
    expect(manifest.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.description).toBeTypeOf("string");
    expect(pkg.files).toEqual(expect.arrayContaining(["dist", ".claude-plugin", "hooks"]));
  });

  it("has hooks/hooks.json registering every event with a command inside the package", () => {
    const hooksFile = readJson(join(packageRoot, "hooks", "hooks.json"));
    expect(hooksFile).toEqual(pluginHooksFile());
    expect(Object.keys(hooksFile.hooks)).toEqual([...DEFAULT_HOOK_EVENTS]);
    for (const groups of Object.values(hooksFile.hooks) as { hooks: { command: string }[] }[][]) {
      for (const hook of groups.flatMap((group) => group.hooks)) {
        expect(hook.command).toBe(PLUGIN_HOOK_COMMAND);
        const resolved = hook.command.replace(PLUGIN_ROOT_VARIABLE, packageRoot).match(/^sh "(.+)"$/)?.[1];
        expect(resolved && existsSync(resolved)).toBe(true);
        expect(relative(packageRoot, resolved as string)).toBe(join("bin", "evals-hook.sh"));
      }
    }
  });

  it("ships JSON Schemas that match the zod schemas", () => {
    expect(readJson(join(packageRoot, "schemas", "hook-error.json"))).toEqual(
      hookJsonSchemaFor("hook-error"),
    );
  });
});

describe("httpHookSettings and supportsHttpHooks", () => {
  it("registers the collector's url for every default event, with a short timeout, after the base's hooks", () => {
    const base = {
      env: { A: "1" },
      hooks: { Stop: [{ hooks: [{ type: "command" as const, command: "mine" }] }] },
    };
    const settings = httpHookSettings({ url: "http://127.0.0.1:1234/runs/r", base });
    expect(settings.env).toEqual({ A: "1" });
    expect(Object.keys(settings.hooks ?? {})).toEqual(expect.arrayContaining([...DEFAULT_HOOK_EVENTS]));
    expect(settings.hooks?.PreToolUse).toEqual([
      { matcher: "*", hooks: [{ type: "http", url: "http://127.0.0.1:1234/runs/r", timeout: 5 }] },
    ]);
    expect(settings.hooks?.Stop?.map((group) => group.hooks[0]?.type)).toEqual(["command", "http"]);
  });

  it("registers only the given events, tool events with their own matcher (runAgent's capture)", () => {
    const url = "http://127.0.0.1:1234/runs/r";
    const settings = httpHookSettings({
      url,
      events: STREAM_GAP_HOOK_EVENTS,
      toolMatcher: STREAM_GAP_TOOL_MATCHER,
    });
    expect(Object.keys(settings.hooks ?? {})).toEqual([...STREAM_GAP_HOOK_EVENTS]);
    const matchers = Object.fromEntries(
      Object.entries(settings.hooks ?? {}).map(([event, groups]) => [event, groups[0]?.matcher]),
    );
    expect(matchers).toMatchObject({
      PreToolUse: "Agent|Task",
      PostToolUse: "Agent|Task",
      PermissionRequest: "*",
      SubagentStart: undefined,
    });
    expect(settings.hooks?.MessageDisplay).toBeUndefined();
    const command = hookSettings({ events: ["PreToolUse"], toolMatcher: { PreToolUse: "Agent" } });
    expect(command.hooks?.PreToolUse?.[0]?.matcher).toBe("Agent");
  });

  it("knows which CLI versions have HTTP hooks (2.1.63 and later)", () => {
    expect(supportsHttpHooks("2.1.330 (Claude Code)")).toBe(true);
    expect(supportsHttpHooks("2.1.63")).toBe(true);
    expect(supportsHttpHooks("2.2.0")).toBe(true);
    expect(supportsHttpHooks("2.1.62")).toBe(false);
    expect(supportsHttpHooks("1.0.99")).toBe(false);
    expect(supportsHttpHooks("not a version")).toBe(false);
  });
});
