import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  extractPackage,
  FIX_COMMAND,
  publishedPackages,
  reportName,
  staleReports,
  WORKSPACE,
} from "../api-report.mjs";

// The workspace's public-surface checks, run by `npm test`: every package's API report (API Extractor)
// matches its build, and knip finds no unused file, export or dependency.

// Inside the workspace, so that API Extractor finds @types/node as it does for a real package.
const scratch = join(WORKSPACE, "tools", "api-report", "test-output");
mkdirSync(scratch, { recursive: true });
const temp = mkdtempSync(join(scratch, "api-report-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function examplePackage(declarations: string): string {
  const dir = join(temp, "example");
  mkdirSync(join(dir, "dist"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name: "@evals/example",
      version: "0.1.0",
      exports: { ".": { import: { types: "./dist/index.d.ts", default: "./dist/index.js" } } },
    }),
  );
  writeFileSync(join(dir, "dist", "index.d.ts"), declarations);
  return dir;
}

describe("the API report (API Extractor)", () => {
  it("is written per types entry, and is stale once the published declarations change", () => {
    const dir = examplePackage("/** Adds. */\nexport declare function add(a: number, b: number): number;\n");
    const [written] = extractPackage(dir);
    expect(written?.report).toBe(join(dir, "api", "example.api.md"));
    const report = readFileSync(join(dir, "api", "example.api.md"), "utf8");
    expect(report).toContain('API Report File for "@evals/example"');
    expect(report).toContain("export function add(a: number, b: number): number;");
    expect(staleReports([dir])).toEqual([]);

    writeFileSync(
      join(dir, "dist", "index.d.ts"),
      "export declare function add(a: number, b: number): number;\nexport declare const internal = 1;\n",
    );
    expect(staleReports([dir])).toEqual([relative(WORKSPACE, join(dir, "api", "example.api.md"))]);
    // The check wrote nothing: the checked-in report is still the old one.
    expect(readFileSync(join(dir, "api", "example.api.md"), "utf8")).toBe(report);
  });

  it("names a subpath's report after the subpath", () => {
    expect(reportName("@evals/core", ".")).toBe("core");
    expect(reportName("@evals/core", "./process")).toBe("core-process");
  });

  it.each((publishedPackages() as string[]).map((dir) => [basename(dir), dir]))(
    "of %s is checked in as built",
    (_name, dir) => {
      for (const entry of extractPackage(dir, { check: true })) {
        expect(entry.errors).toEqual([]);
        expect(
          entry.changed,
          `${relative(WORKSPACE, entry.report)} differs from the build: run \`${FIX_COMMAND}\` and commit it`,
        ).toBe(false);
      }
    },
  );
});

function knip(args: string[]) {
  return spawnSync(process.execPath, [join(WORKSPACE, "node_modules", "knip", "bin", "knip.js"), ...args], {
    cwd: WORKSPACE,
    encoding: "utf8",
  });
}

describe("knip", () => {
  it("reports an export nobody imports", () => {
    const result = knip([
      "--no-progress",
      "--no-config-hints",
      "--directory",
      fileURLToPath(new URL("./__fixtures__/knip-project", import.meta.url)),
    ]);
    expect(result.stdout).toMatch(/Unused exports \(1\)\s+unused\s+function\s+src\/helpers\.ts:6:17/);
    expect(result.status).toBe(1);
  });

  it("finds no unused file, export or dependency in the workspace", () => {
    const result = knip(["--no-progress", "--no-config-hints"]);
    expect(
      result.status,
      `npx knip found unused code (remove it, or say in knip.jsonc why it is kept):\n${result.stdout}${result.stderr}`,
    ).toBe(0);
  });
});
