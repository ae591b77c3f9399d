import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { onlyProvider } from "../src/only-provider.js";

// A run gets only its provider's models file when nothing OpenCode reads can name a model of another
// provider. OpenCode reads project config from the working directory up to the git worktree's root.
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A git worktree root (a `.git` folder) in a parent folder, and a working directory two levels in. */
function workspace(): { outside: string; root: string; cwd: string } {
  const outside = mkdtempSync(join(tmpdir(), "oc-only-provider-"));
  dirs.push(outside);
  const root = join(outside, "repo");
  const cwd = join(root, "packages", "app");
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return { outside, root, cwd };
}

function write(path: string, text: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

const run = { model: "anthropic/claude-sonnet-4-5", baseUrl: "http://127.0.0.1:1" };

describe("onlyProvider", () => {
  it("is the run's provider when nothing up to the git root names another", () => {
    const { cwd, root } = workspace();
    write(
      join(root, ".opencode", "command", "review.md"),
      "---\nmodel: anthropic/claude-haiku-4-5\n---\nReview.\n",
    );
    expect(onlyProvider(run, cwd)).toBe("anthropic");
  });

  it("keeps the whole database for a project config in any folder up to the git root", () => {
    for (const file of ["opencode.json", "opencode.jsonc", ".opencode/opencode.json"]) {
      const { cwd, root } = workspace();
      write(join(root, file), "{}");
      expect(onlyProvider(run, cwd), file).toBeUndefined();
    }
  });

  it("keeps the whole database for a command, agent or mode of another provider up to the git root", () => {
    for (const file of ["command/review.md", "commands/deep/review.md", "agent/helper.md", "modes/fast.md"]) {
      const { cwd, root } = workspace();
      write(join(root, ".opencode", file), "---\nmodel: openai/gpt-4o\n---\nDo it.\n");
      expect(onlyProvider(run, cwd), file).toBeUndefined();
    }
    const { cwd } = workspace();
    expect(
      onlyProvider({ ...run, config: { command: { review: { model: "openai/gpt-4o" } } } }, cwd),
    ).toBeUndefined();
  });

  it("reads a frontmatter's model as YAML, and keeps the whole database when it is not YAML", () => {
    // Forms a line pattern misses: a folded scalar, a quoted key, a flow mapping.
    for (const header of [
      "model: >-\n  openai/gpt-4o",
      '"model": openai/gpt-4o',
      "{ description: review, model: openai/gpt-4o }",
      "description: [unclosed\nmodel: anthropic/claude-haiku-4-5",
    ]) {
      const { cwd, root } = workspace();
      write(join(root, ".opencode", "agent", "helper.md"), `---\n${header}\n---\nDo it.\n`);
      expect(onlyProvider(run, cwd), header).toBeUndefined();
    }
  });

  it("stops at the git root in a worktree, and walks to the filesystem root outside git", () => {
    const { outside, root, cwd } = workspace();
    write(join(outside, "opencode.json"), "{}");
    // Above the worktree: OpenCode does not read it.
    expect(onlyProvider(run, cwd)).toBe("anthropic");
    // Without git, it does.
    rmSync(join(root, ".git"), { recursive: true });
    expect(onlyProvider(run, cwd)).toBeUndefined();
  });
});
