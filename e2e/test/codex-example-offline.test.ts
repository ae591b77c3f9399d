import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { EvalTestMetaSchema } from "@evals/logging";
import { canRefuseNetwork, networkRefused } from "@evals/vcr";
import { afterAll, describe, expect, it } from "vitest";
import { WORKSPACE } from "./packed.js";

/**
 * The Codex example (examples/codex-agent: cases in the shared vocabulary, a scripted OpenAI
 * Responses API model) recorded from its scripted model with the real codex CLI, then replayed with the network refused: in a
 * network namespace with only loopback (`unshare -rn`), strict, as on an offline CI. The verdicts
 * of the replay must be the recording's, case for case.
 *
 * It works on a copy of the example inside the workspace's ignored tmp/ (so `@evals/*` and the
 * shared vitest config resolve as in the example) without its recordings, so nothing committed is
 * rewritten.
 */

const example = join(WORKSPACE, "examples", "codex-agent");
const vitestBin = join(WORKSPACE, "node_modules", "vitest", "vitest.mjs");
mkdirSync(join(WORKSPACE, "tmp"), { recursive: true });
const copy = mkdtempSync(join(WORKSPACE, "tmp", "codex-offline-"));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const kept = new Set(["cassettes", "results", "test-output", "test-results", "node_modules"]);
cpSync(example, copy, {
  recursive: true,
  filter: (source) => !kept.has(source.slice(example.length + 1).split("/")[0] ?? ""),
});

type Verdict = { id: string; state: string; scores: unknown; violations: string[] };

/** Runs the copy's eval suite with vitest (inside `unshare -rn` when `offline`); its verdicts by case. */
async function runSuite(name: string, env: Record<string, string>, offline: boolean): Promise<Verdict[]> {
  // Where the workspace's shared eval config has vitest write its JSON report.
  const report = join(copy, "test-results", "eval", "vitest.json");
  rmSync(report, { force: true });
  const command = [process.execPath, vitestBin, "run", "-c", "vitest.eval.config.ts"];
  const childEnv: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: "0", ...env };
  for (const variable of [
    "ANTHROPIC_API_KEY",
    "VITEST",
    "VITEST_WORKER_ID",
    "VITEST_POOL_ID",
    "NODE_OPTIONS",
  ]) {
    delete childEnv[variable];
  }
  const [file, ...args] = offline ? networkRefused(command) : command;
  let output = "";
  try {
    const child = await promisify(execFile)(file!, args, {
      cwd: copy,
      env: childEnv,
      encoding: "utf8",
      timeout: 280_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    output = `${child.stdout}\n${child.stderr}`;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    output = `${failed.message}\n${failed.stdout ?? ""}\n${failed.stderr ?? ""}`;
  }
  let results: {
    testResults: Array<{
      assertionResults: Array<{ status: string; meta: unknown; failureMessages?: string[] }>;
    }>;
  };
  try {
    results = JSON.parse(readFileSync(report, "utf8"));
  } catch {
    throw new Error(`the ${name} run wrote no report:\n${output}`);
  }
  return results.testResults.flatMap((file) =>
    file.assertionResults.map((test) => {
      const { evalCase } = EvalTestMetaSchema.parse(test.meta);
      return {
        id: evalCase.id,
        state: test.status,
        scores: evalCase.scores,
        violations: evalCase.violations.map(
          (violation) => `${violation.rule}/${violation.type}: ${violation.message}`,
        ),
      };
    }),
  );
}

/** The verdicts with each trial's fixture copy (/tmp/evals-fixture-XXXX) as <cwd>. */
function withoutFixtureDirs(verdicts: Verdict[]): unknown {
  return JSON.parse(JSON.stringify(verdicts).replace(/\/[^\s"]*evals-fixture-[A-Za-z0-9]+/g, "<cwd>"));
}

const netnsReason = canRefuseNetwork() ? "" : "(unprivileged network namespaces are not available here)";

describe("the Codex example", () => {
  it.skipIf(netnsReason !== "")(
    `is recorded from its scripted model, then replays with the network refused to the same verdicts ${netnsReason}`,
    async () => {
      const recorded = await runSuite("record", { VCR_MODE: "record" }, false);
      expect(recorded.map(({ id, state }) => ({ id, state }))).toEqual([
        { id: "reports-config", state: "passed" },
        { id: "raises-timeout", state: "passed" },
        { id: "deletes-notes-unasked", state: "passed" },
      ]);
      // The misbehaving case passed because its expected violation occurred.
      expect(recorded[2]?.violations.join("\n")).toMatch(/forbidden-commands/);
      expect(readdirSync(join(copy, "cassettes", "codex-agent"))).toHaveLength(3);

      // CI: strict replay, no key, inside a network namespace with only loopback.
      const replayed = await runSuite("replay", { VCR_MODE: "strict", CI: "true" }, true);
      // Codex names files by absolute path (its Write and Edit too): each trial has its own fixture copy.
      expect(withoutFixtureDirs(replayed)).toEqual(withoutFixtureDirs(recorded));
    },
    600_000,
  );
});
