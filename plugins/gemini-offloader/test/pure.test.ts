import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { changedFiles, collectIncludedFiles, fileReferences } from "../src/cache/included-files.js";
import { parseSince, UsageError } from "../src/cli/args.js";
import { summarize } from "../src/summary.js";
import { exampleFromSchema } from "../src/testing/index.js";
import { workspace } from "./helpers.js";

describe("summarize", () => {
  test("a short answer is returned whole", () => {
    expect(summarize("short", 100, "/f.md")).toEqual({ text: "short", truncated: false });
  });

  test("a long answer is cut at a paragraph end and says where the rest is", () => {
    const answer = `${"a".repeat(70)}\n\n${"b".repeat(70)}`;
    const summary = summarize(answer, 100, "/full.md");
    expect(summary.truncated).toBe(true);
    expect(summary.text).toBe(
      `${"a".repeat(70)}\n\n[… 72 more characters: the full answer (142 characters) is in /full.md]`,
    );
  });
});

describe("the files an answer depends on", () => {
  test("folders are walked (skipping .git and node_modules), @path references added; edits show up", () => {
    const { project } = workspace("files");
    mkdirSync(join(project, "src", "node_modules", "dep"), { recursive: true });
    mkdirSync(join(project, "src", ".git"), { recursive: true });
    writeFileSync(join(project, "src", "a.ts"), "a");
    writeFileSync(join(project, "src", "node_modules", "dep", "x.js"), "x");
    writeFileSync(join(project, "src", ".git", "HEAD"), "ref");
    writeFileSync(join(project, "README.md"), "readme");
    const before = collectIncludedFiles(project, [join(project, "src")], "Explain @README.md, please.");
    expect(before.files.map((f) => f.path)).toEqual([
      join(project, "README.md"),
      join(project, "src", "a.ts"),
    ]);

    utimesSync(join(project, "src", "a.ts"), new Date(2020, 0, 1), new Date(2020, 0, 1));
    const after = collectIncludedFiles(project, [join(project, "src")], "Explain @README.md, please.");
    expect(after.fingerprint).not.toBe(before.fingerprint);
    expect(changedFiles(before.files, after.files)).toEqual([join(project, "src", "a.ts")]);
  });

  test("@path references: escaped spaces, trailing punctuation", () => {
    expect(fileReferences("see @docs/a\\ b.md, and @src/x.ts. not an@email")).toEqual([
      "docs/a b.md",
      "src/x.ts",
    ]);
  });
});

describe("--since", () => {
  test("durations count back from now; dates parse; nonsense is a usage error", () => {
    const now = Date.parse("2026-02-01T00:00:00Z");
    expect(parseSince("7d", now).toISOString()).toBe("2026-01-25T00:00:00.000Z");
    expect(parseSince("12h", now).toISOString()).toBe("2026-01-31T12:00:00.000Z");
    expect(parseSince("2026-01-02", now).toISOString()).toBe("2026-01-02T00:00:00.000Z");
    expect(() => parseSince("last week", now)).toThrow(UsageError);
  });
});

describe("the fake's JSON answers", () => {
  test("a value that fits the router's schema", () => {
    const schema = {
      type: "object",
      properties: {
        complexity_reasoning: { type: "string" },
        complexity_score: { type: "integer", minimum: 1, maximum: 100 },
        mode: { type: "string", enum: ["flash", "pro"] },
        tags: { type: "array", items: { type: "string" } },
      },
    };
    expect(exampleFromSchema(schema)).toEqual({
      complexity_reasoning: "fake",
      complexity_score: 1,
      mode: "flash",
      tags: [],
    });
  });
});
