import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runFixtureSuites } from "@evals/test-kit/vitest-fixture";
import { afterAll, describe, expect, it } from "vitest";

const fixtureDir = fileURLToPath(new URL("./__fixtures__/describe-cases/", import.meta.url));
const outputRoot = mkdtempSync(join(tmpdir(), "describe-cases-"));
afterAll(() => rmSync(outputRoot, { recursive: true, force: true }));

describe("describeCases under vitest", () => {
  it("makes one test per case of the file, named by the case, each with its own scorers", async () => {
    const tests = await runFixtureSuites({
      root: fixtureDir,
      include: ["cases.fixture.ts"],
      env: { EVALS_TEST_OUTPUT_ROOT: outputRoot },
      testTimeout: 120_000,
    });
    expect([...tests.keys()]).toEqual(["two cases > says-hello", "two cases > says bye"]);
    const hello = tests.get("two cases > says-hello")!;
    const bye = tests.get("two cases > says bye")!;
    if (hello.state === "skipped") return; // no working claude here
    expect(hello.errors).toEqual([]);
    expect(hello.state).toBe("passed");
    const helloScorers = (hello.meta.evalCase as { trials: { scores: { scorer: string }[] }[] }).trials.map(
      (trial) => trial.scores.map((score) => score.scorer),
    );
    expect(helloScorers).toHaveLength(2);
    expect(helloScorers[0]).toContain("behavior");
    expect(helloScorers[0]).not.toContain("never bye");
    expect(bye.state).toBe("failed");
    expect(bye.errors.join("\n")).toContain("never bye");
    // The case's own behavior scorer passed: only the scorer given to that case failed it.
    expect(bye.errors.join("\n")).not.toMatch(/✗ behavior/);
  }, 300_000);
});
