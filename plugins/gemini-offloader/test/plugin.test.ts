import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { PLUGIN_ROOT, workspace } from "./helpers.js";

const SKILL = readFileSync(join(PLUGIN_ROOT, "skills", "gemini-offloader", "SKILL.md"), "utf8");
const SCRIPTS = ["launcher", "init", "query", "session", "memory", "status", "sync"];

/** The usage text a script prints for --help. */
function usageOf(script: string): string {
  const run = spawnSync(process.execPath, [join(PLUGIN_ROOT, "dist", `${script}.js`), "--help"], {
    encoding: "utf8",
  });
  return JSON.parse(run.stdout).usage as string;
}

describe("the plugin as Claude Code loads it", () => {
  test("plugin.json names the plugin; SKILL.md has the frontmatter a skill needs", () => {
    const manifest = JSON.parse(readFileSync(join(PLUGIN_ROOT, ".claude-plugin", "plugin.json"), "utf8"));
    expect(manifest).toMatchObject({ name: "gemini-offloader", version: expect.any(String) });
    const frontmatter = /^---\n([\s\S]*?)\n---\n/.exec(SKILL)![1]!;
    expect(frontmatter).toMatch(/^name: gemini-offloader$/m);
    expect(/^description: (.+)$/m.exec(frontmatter)![1]!.length).toBeGreaterThan(100);
  });

  test("every command in SKILL.md runs a built script through CLAUDE_PLUGIN_ROOT, with actions the script knows", () => {
    const commands = [...SKILL.matchAll(/node \$\{CLAUDE_PLUGIN_ROOT\}\/dist\/(\w+)\.js(?: ([a-z-]+))?/g)];
    expect(new Set(commands.map((match) => match[1]))).toEqual(new Set(SCRIPTS));
    for (const script of SCRIPTS) expect(existsSync(join(PLUGIN_ROOT, "dist", `${script}.js`))).toBe(true);
    for (const [, script, action] of commands) {
      if (action && ["session", "memory", "sync"].includes(script!))
        expect(usageOf(script!)).toContain(`  ${action}`);
    }
    // No other way of running things sneaks in.
    expect(SKILL).not.toMatch(/\bbun\b|npx |gemini -p/);
  });

  test("SKILL.md's exit code table matches the scripts' usage", () => {
    for (const code of ["0", "1", "2", "75", "77", "124"])
      expect(SKILL).toMatch(new RegExp(`^\\| ${code} +\\|`, "m"));
    expect(usageOf("query")).toContain("75 rate limited, 77 authentication, 124 timeout");
  });

  test("`claude plugin validate --strict` accepts the plugin and finds the skill", () => {
    const require = createRequire(import.meta.url);
    const claude = join(
      dirname(require.resolve("@anthropic-ai/claude-code/package.json")),
      "bin",
      "claude.exe",
    );
    const { base } = workspace("validate");
    const run = spawnSync(claude, ["plugin", "validate", PLUGIN_ROOT, "--strict", "--json"], {
      encoding: "utf8",
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        HOME: base,
        CLAUDE_CONFIG_DIR: join(base, ".claude"),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      },
    });
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ success: true, strict: true, manifest: { errors: [], warnings: [] } });
    expect(report.provides.skills).toEqual(["gemini-offloader:gemini-offloader"]);
  });
});
