import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const script = join(import.meta.dirname, "..", "check-links.mjs");
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A git checkout of these files (the check reads the files git lists). */
function checkout(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "docs-check-"));
  folders.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  spawnSync("git", ["init", "-q"], { cwd: root });
  spawnSync("git", ["add", "-A"], { cwd: root });
  return root;
}

function check(root: string) {
  const result = spawnSync(process.execPath, [script, "--root", root], {
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const docs = {
  "README.md": "# Tool\n\nSee [the guide](docs/guide.md#install) and [the package](packages/a).\n",
  "docs/guide.md": "# Guide\n\n## Install\n\nBack to the [README](../README.md).\n",
  "packages/a/README.md": "# a\n\nThe [guide](../../docs/guide.md).\n",
};

describe("check-links (remark-validate-links over every tracked *.md)", () => {
  it("passes when every local link and anchor resolves", () => {
    const { status, output } = check(checkout(docs));
    expect(output).toContain("3 Markdown files, every local link and anchor resolves");
    expect(status).toBe(0);
  });

  it("fails on a planted missing file and a missing heading, naming file:line:column of each", () => {
    const root = checkout({
      ...docs,
      "docs/guide.md": "# Guide\n\n## Install\n\nSee [usage](usage.md).\n",
      "packages/a/README.md":
        "# a\n\nThe [guide](../../docs/guide.md).\n\nAnd [setup](../../docs/guide.md#setup).\n",
    });
    const { status, output } = check(root);
    expect(status).toBe(1);
    expect(output).toMatch(/^docs\/guide\.md:5:5: Cannot find file `usage\.md`$/m);
    expect(output).toMatch(
      /^packages\/a\/README\.md:5:5: Cannot find heading for `#setup` in `\.\.\/\.\.\/docs\/guide\.md`$/m,
    );
    expect(output).toContain("broken local links or anchors");
  });

  it("leaves test fixtures out: they are data for agents, not documentation", () => {
    const root = checkout({ ...docs, "test/__fixtures__/notes.md": "[gone](nowhere.md)\n" });
    expect(check(root).status).toBe(0);
  });
});
