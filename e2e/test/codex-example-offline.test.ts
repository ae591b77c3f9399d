import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copyExample, netnsReason, runExampleSuite, type Verdict } from "./example-suite.js";

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

const copy = copyExample("codex-agent", ["cassettes"]);

/** Runs the copy's eval suite (inside `unshare -rn` when `offline`): its verdicts by case. */
async function runSuite(run: string, env: Record<string, string>, offline: boolean): Promise<Verdict[]> {
  return (await runExampleSuite(copy, run, env, offline)).verdicts;
}

/** The verdicts with each trial's fixture copy (/tmp/evals-fixture-XXXX) as <cwd>. */
function withoutFixtureDirs(verdicts: Verdict[]): unknown {
  return JSON.parse(JSON.stringify(verdicts).replace(/\/[^\s"]*evals-fixture-[A-Za-z0-9]+/g, "<cwd>"));
}

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
