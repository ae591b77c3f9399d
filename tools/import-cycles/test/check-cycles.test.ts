import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const script = join(import.meta.dirname, "..", "check-cycles.mjs");
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A workspace (packages/*) made of these files, as the repository's own is laid out. */
function workspace(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "import-cycles-"));
  folders.push(root);
  const all = { "package.json": JSON.stringify({ private: true, workspaces: ["packages/*"] }), ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(root: string) {
  const result = spawnSync(process.execPath, [script, "--root", root], {
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const pkg = (name: string) => JSON.stringify({ name, type: "module" });

describe("check-cycles (dpdm over every workspace package)", () => {
  it("passes a workspace without a cycle", () => {
    const root = workspace({
      "packages/a/package.json": pkg("@fx/a"),
      "packages/a/src/index.ts": 'export type { Shape } from "./shape.js";\nexport const a = 1;\n',
      "packages/a/src/shape.ts": "export interface Shape { size: number }\n",
    });
    const result = check(root);
    expect(result.output).toContain("no import cycle in 1 workspace packages");
    expect(result.status).toBe(0);
  });

  it("fails on a cycle of type-only imports, naming its files", () => {
    const root = workspace({
      "packages/a/package.json": pkg("@fx/a"),
      "packages/a/src/one.ts": 'import type { Two } from "./two.js";\nexport interface One { two?: Two }\n',
      "packages/a/src/two.ts": 'import type { One } from "./one.js";\nexport interface Two { one?: One }\n',
    });
    const result = check(root);
    expect(result.status, result.output).toBe(1);
    expect(result.output).toMatch(
      /packages\/a\/src\/(one\.ts -> packages\/a\/src\/two\.ts|two\.ts -> packages\/a\/src\/one\.ts)/,
    );
    expect(result.output).toContain("check-cycles: import cycles found");
  });

  it("fails on a cycle through two workspace packages, imported by name", () => {
    const root = workspace({
      "packages/b/package.json": pkg("@fx/b"),
      "packages/b/src/index.ts": 'import { c } from "@fx/c";\nexport const b = c + 1;\n',
      "packages/c/package.json": pkg("@fx/c"),
      "packages/c/src/index.ts":
        'import type { b } from "@fx/b";\nexport const c = 1;\nexport type B = typeof b;\n',
    });
    const result = check(root);
    expect(result.status, result.output).toBe(1);
    expect(result.output).toMatch(/packages\/(b|c)\/src\/index\.ts -> packages\/(c|b)\/src\/index\.ts/);
  });
});
