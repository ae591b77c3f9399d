import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * Imports `specifier` in a fresh node process in which vitest cannot be resolved (a resolve hook refuses
 * it, and names who asked): what the import printed, or the error it failed with.
 */
function importWithoutVitest(specifier: string): string {
  const hooks = `export async function resolve(specifier, context, next) {
  if (specifier === "vitest" || specifier.startsWith("vitest/")) throw new Error("vitest loaded by " + context.parentURL);
  return next(specifier, context);
}`;
  const script = `import { register } from "node:module";
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});
try {
  const loaded = await import(${JSON.stringify(specifier)});
  console.log("loaded " + Object.keys(loaded).length + " exports");
} catch (error) {
  console.log("failed: " + error.message);
}`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: __dirname,
    encoding: "utf8",
  }).trim();
}

describe("the engine without vitest", () => {
  it("import('@evals/harness') loads no vitest; @evals/harness/vitest does", () => {
    expect(importWithoutVitest("@evals/harness")).toMatch(/^loaded \d+ exports$/);
    // The hook really refuses vitest: the subpath that declares vitest suites cannot load without it.
    expect(importWithoutVitest("@evals/harness/vitest")).toMatch(
      /^failed: vitest loaded by .*harness\/dist\//,
    );
  });
});
