import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { apiReport, publishedPackages, REPORT_FILE } from "../api-report.mjs";

const temp = mkdtempSync(join(tmpdir(), "api-report-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("the API report", () => {
  it("is the published declarations without their comments", () => {
    const dir = join(temp, "pkg");
    mkdirSync(join(dir, "dist"), { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "@evals/example" }));
    writeFileSync(
      join(dir, "dist", "index.d.ts"),
      "/** Adds. */\ndeclare function add(a: number, b: number): number;\n// internal note\ninterface Internal { x: 1 }\nexport { add };\n",
    );
    const report: string = apiReport(dir);
    expect(report).toContain("# API report: @evals/example");
    expect(report).toContain("1 exports");
    expect(report).toContain("declare function add(a: number, b: number): number;");
    expect(report).not.toMatch(/Adds\.|internal note/);
  });

  it.each((publishedPackages() as string[]).map((dir) => [basename(dir), dir]))(
    "of %s is checked in as built (after a change to its exports: npm run api)",
    (_name, dir) => {
      const checkedIn = (() => {
        try {
          return readFileSync(join(dir, REPORT_FILE), "utf8");
        } catch {
          return "(none)";
        }
      })();
      expect(checkedIn, `${join(dir, REPORT_FILE)} differs from the build: run npm run api`).toBe(
        apiReport(dir),
      );
    },
  );
});
