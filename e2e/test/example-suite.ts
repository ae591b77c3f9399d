import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { EvalTestMetaSchema } from "@evals/logging";
import { runVitestSuite } from "@evals/test-kit/vitest-suite";
import { canRefuseNetwork } from "@evals/vcr";
import { afterAll } from "vitest";
import { WORKSPACE } from "./packed.js";

/** Why a test that refuses the network is skipped here, or "" when it runs. */
export const netnsReason = canRefuseNetwork()
  ? ""
  : "(unprivileged network namespaces are not available here)";

/** What a run of an example's eval suite writes: never copied. */
const GENERATED = ["results", "test-output", "test-results", "node_modules"];

/**
 * A copy of examples/<name> inside the workspace's ignored tmp/ (so `@evals/*` and the shared vitest
 * config resolve as in the example; nothing committed is rewritten), without what runs generate and
 * the `leaveOut` folders; deleted after the file's tests.
 */
export function copyExample(name: string, leaveOut: string[] = []): string {
  const example = join(WORKSPACE, "examples", name);
  mkdirSync(join(WORKSPACE, "tmp"), { recursive: true });
  const copy = mkdtempSync(join(WORKSPACE, "tmp", `${name}-offline-`));
  afterAll(() => rmSync(copy, { recursive: true, force: true }));
  const skipped = new Set([...GENERATED, ...leaveOut]);
  cpSync(example, copy, {
    recursive: true,
    filter: (source) => !skipped.has(source.slice(example.length + 1).split("/")[0] ?? ""),
  });
  return copy;
}

export type Verdict = { id: string; state: string; scores: unknown; violations: string[] };

/**
 * Runs the copy's eval suite with vitest (inside `unshare -rn` when `offline`): its verdicts by case,
 * and what it printed.
 */
export async function runExampleSuite(
  copy: string,
  name: string,
  env: Record<string, string>,
  offline: boolean,
): Promise<{ verdicts: Verdict[]; output: string }> {
  const { tests, output } = await runVitestSuite({
    name,
    cwd: copy,
    args: ["-c", "vitest.eval.config.ts"],
    // Where the workspace's shared eval config has vitest write its JSON report.
    report: join(copy, "test-results", "eval", "vitest.json"),
    env,
    offline,
    timeoutMs: 280_000,
  });
  const verdicts = tests.map((test) => {
    const { evalCase } = EvalTestMetaSchema.parse(test.meta);
    return {
      id: evalCase.id,
      state: test.status,
      scores: evalCase.scores,
      violations: evalCase.violations.map(
        (violation) => `${violation.rule}/${violation.type}: ${violation.message}`,
      ),
    };
  });
  return { verdicts, output };
}
