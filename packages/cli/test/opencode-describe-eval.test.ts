import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RUNS_FOLDER, readRunFolder } from "@evals/core";
import { EvalTestMetaSchema } from "@evals/logging";
import { runFixtureSuites } from "@evals/test-kit/vitest-fixture";
import { afterAll, describe, expect, it } from "vitest";

const fixtureDir = fileURLToPath(new URL("./__fixtures__/opencode-describe-eval/", import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("describeEval({ agent: openCodeRunner })", () => {
  it("runs every trial with the real opencode CLI and judges it like a Claude Code run", async () => {
    const project = mkdtempSync(join(tmpdir(), "oc-describe-eval-project-"));
    const output = mkdtempSync(join(tmpdir(), "oc-describe-eval-out-"));
    dirs.push(project, output);
    writeFileSync(join(project, "a.txt"), "alpha\n");

    const tests = await runFixtureSuites({
      root: fixtureDir,
      include: ["opencode.suite.ts"],
      env: { OC_FIXTURE: project, EVALS_OUTPUT_DIR: output },
    });

    expect([...tests.keys()]).toEqual(["opencode > lists", "opencode > no-shell"]);
    const lists = tests.get("opencode > lists")!;
    expect(lists.errors).toEqual([]);
    expect(lists.state).toBe("passed");
    const passed = EvalTestMetaSchema.parse(lists.meta).evalCase;
    expect(passed.scores.find((score) => score.scorer === "trajectory")).toMatchObject({
      score: 1,
      passed: true,
    });

    // Each trial's run folder is an OpenCode run (OpenCode's own tool names kept beside the shared ones).
    const runsDir = join(output, RUNS_FOLDER);
    const folders = readdirSync(runsDir);
    expect(folders).toHaveLength(2);
    for (const folder of folders) {
      const { run } = await readRunFolder(join(runsDir, folder));
      expect(run.agent).toBe("opencode");
      expect(run.events.find((event) => event.type === "tool_call")).toMatchObject({
        name: "Bash",
        original_name: "bash",
      });
    }

    // The same run, a case that forbids the shell: OpenCode's `bash` is Claude Code's Bash.
    const noShell = tests.get("opencode > no-shell")!;
    expect(noShell.state).toBe("failed");
    expect(noShell.errors.join("\n")).toMatch(/behavior/);
    const failed = EvalTestMetaSchema.parse(noShell.meta).evalCase;
    expect(failed.violations).toContainEqual(
      expect.objectContaining({
        rule: "behavior",
        type: "forbidden-tool",
        message: expect.stringMatching(/Bash/),
      }),
    );
  }, 400_000);
});
