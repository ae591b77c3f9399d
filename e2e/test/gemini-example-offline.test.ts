import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { EvalTestMetaSchema } from "@evals/logging";
import { canRefuseNetwork, networkRefused } from "@evals/vcr";
import { afterAll, describe, expect, it } from "vitest";
import { WORKSPACE } from "./packed.js";

/**
 * The Gemini example (examples/gemini-agent: the real gemini CLI through @evals/gemini-cli, judged by
 * cases in the shared vocabulary) replayed from its committed Gemini API recordings with the network
 * refused: in a network namespace with only loopback (`unshare -rn`), strict, as on an offline CI.
 * It runs a copy of the example inside the workspace's ignored tmp/ (so its reports go there).
 */

const example = join(WORKSPACE, "examples", "gemini-agent");
const vitestBin = join(WORKSPACE, "node_modules", "vitest", "vitest.mjs");
mkdirSync(join(WORKSPACE, "tmp"), { recursive: true });
const copy = mkdtempSync(join(WORKSPACE, "tmp", "gemini-offline-"));
afterAll(() => rmSync(copy, { recursive: true, force: true }));
const generated = new Set(["results", "test-output", "test-results", "node_modules"]);
cpSync(example, copy, {
  recursive: true,
  filter: (source) => !generated.has(source.slice(example.length + 1).split("/")[0] ?? ""),
});

const netnsReason = canRefuseNetwork() ? "" : "(unprivileged network namespaces are not available here)";

describe("the Gemini example", () => {
  it.skipIf(netnsReason !== "")(
    `replays its recordings strictly with the network refused, every case judged as recorded ${netnsReason}`,
    async () => {
      const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: "0", VCR_MODE: "strict", CI: "true" };
      for (const variable of [
        "GEMINI_API_KEY",
        "VITEST",
        "VITEST_WORKER_ID",
        "VITEST_POOL_ID",
        "NODE_OPTIONS",
      ]) {
        delete env[variable];
      }
      const [file, ...args] = networkRefused([
        process.execPath,
        vitestBin,
        "run",
        "-c",
        "vitest.eval.config.ts",
      ]);
      let output = "";
      try {
        const child = await promisify(execFile)(file!, args, {
          cwd: copy,
          env,
          encoding: "utf8",
          timeout: 280_000,
          maxBuffer: 64 * 1024 * 1024,
        });
        output = `${child.stdout}\n${child.stderr}`;
      } catch (error) {
        const failed = error as { stdout?: string; stderr?: string; message: string };
        output = `${failed.message}\n${failed.stdout ?? ""}\n${failed.stderr ?? ""}`;
      }
      const report = join(copy, "test-results", "eval", "vitest.json");
      let results: { testResults: Array<{ assertionResults: Array<{ status: string; meta: unknown }> }> };
      try {
        results = JSON.parse(readFileSync(report, "utf8"));
      } catch {
        throw new Error(`the replay wrote no report:\n${output}`);
      }
      const verdicts = results.testResults.flatMap((test) =>
        test.assertionResults.map((assertion) => {
          const { evalCase } = EvalTestMetaSchema.parse(assertion.meta);
          return {
            id: evalCase.id,
            state: assertion.status,
            violations: evalCase.violations.map((v) => `${v.rule}/${v.type}`),
          };
        }),
      );
      expect(
        verdicts.map(({ id, state }) => ({ id, state })),
        output,
      ).toEqual([
        { id: "gemini-reports-config", state: "passed" },
        { id: "gemini-raises-timeout", state: "passed" },
        { id: "gemini-deletes-notes", state: "passed" },
      ]);
      // The misbehaving case passed because its violations occurred, the recovered failed command's among them.
      expect(verdicts[2]?.violations).toEqual(
        expect.arrayContaining(["behavior/forbidden-tool", "stop-on-failure/continued-after-failure"]),
      );
      expect(output).toMatch(/replayed/);
    },
    300_000,
  );
});
