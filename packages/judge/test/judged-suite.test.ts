import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type EvalTestMeta, EvalTestMetaSchema } from "@evals/logging";
import { runVitestSuite } from "@evals/test-kit/vitest-suite";
import { canRefuseNetwork, scripted, startModelServer } from "@evals/vcr";
import { afterAll, describe, expect, it } from "vitest";
import { keywordJudge } from "./helpers.js";

const fixtureDir = fileURLToPath(new URL("./__fixtures__/judged-suite/", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "judged-suite-"));
const judgeDir = join(work, "cassettes");
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Runs the fixture suite with vitest (inside `unshare -rn` when `offline`) and returns its one case.
 * Asynchronously: the scripted judge model answers from this process meanwhile.
 */
async function runSuite(env: Record<string, string>, offline: boolean, name: string) {
  const report = join(work, `${name}.json`);
  const { tests, output } = await runVitestSuite({
    name,
    args: ["--root", fixtureDir, "--reporter=json", `--outputFile=${report}`],
    report,
    env: { EVAL_LLM_JUDGE: "1", JUDGE_DIR: judgeDir, ...env },
    offline,
    timeoutMs: 240_000,
  });
  const test = tests[0]!;
  expect(test.status, `${output}\n${test.failureMessages?.join("\n")}`).toBe("passed");
  return EvalTestMetaSchema.parse(test.meta).evalCase;
}

const netnsReason = canRefuseNetwork() ? "" : "(unprivileged network namespaces are not available here)";

describe("a describeEval suite with the rubric judge", () => {
  it.skipIf(netnsReason !== "")(
    `records the judge's verdicts once, then replays them offline with the network refused, to the same verdicts ${netnsReason}`,
    async () => {
      const judgeModel = await startModelServer({ source: scripted(keywordJudge) });
      let recorded: EvalTestMeta["evalCase"];
      try {
        recorded = await runSuite({ VCR_MODE: "record", JUDGE_UPSTREAM: judgeModel.url }, false, "record");
      } finally {
        await judgeModel.close();
      }
      expect(judgeModel.interactions).toHaveLength(1);
      expect(readdirSync(join(judgeDir, "judge"))).toEqual([
        expect.stringMatching(/^checklist\.rubric\.[0-9a-f]{8}\.recording\.json$/),
      ]);

      // CI: strict, no key, inside a network namespace with only loopback.
      const replayed = await runSuite({ VCR_MODE: "strict", CI: "true" }, true, "replay");
      expect(replayed.scores).toEqual(recorded.scores);
      expect(replayed.scores).toContainEqual({
        scorer: "rubric",
        score: 2 / 3,
        passed: true,
        threshold: 2 / 3,
      });
      const messages = (meta: EvalTestMeta["evalCase"]) =>
        meta.violations.map((violation) => violation.message);
      expect(messages(replayed)).toEqual(messages(recorded));
      expect(messages(replayed)).toContain(
        'criterion 3 not met: "Mentions "coffee"": the answer never says "coffee"',
      );
    },
    300_000,
  );
});
