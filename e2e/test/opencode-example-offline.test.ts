import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copyExample, netnsReason, runExampleSuite, type Verdict } from "./example-suite.js";

/**
 * The OpenCode example (examples/opencode-agent: a custom agent file and OAC-style cases) recorded
 * from its scripted model with the real opencode CLI, then replayed with the network refused: in a
 * network namespace with only loopback (`unshare -rn`), strict, as on an offline CI. The verdicts
 * of the replay must be the recording's, case for case.
 *
 * It works on a copy of the example inside the workspace's ignored tmp/ (so `@evals/*` and the
 * shared vitest config resolve as in the example) without its recordings, so nothing committed is
 * rewritten.
 */

const copy = copyExample("opencode-agent", ["cassettes"]);

/** Runs the copy's eval suite (inside `unshare -rn` when `offline`): its verdicts by case. */
async function runSuite(run: string, env: Record<string, string>, offline: boolean): Promise<Verdict[]> {
  return (await runExampleSuite(copy, run, env, offline)).verdicts;
}

describe("the OpenCode example", () => {
  it.skipIf(netnsReason !== "")(
    `is recorded from its scripted model, then replays with the network refused to the same verdicts ${netnsReason}`,
    async () => {
      const recorded = await runSuite("record", { VCR_MODE: "record" }, false);
      expect(recorded.map(({ id, state }) => ({ id, state }))).toEqual([
        { id: "reviewer-reports-config", state: "passed" },
        { id: "reviewer-lists-then-reads", state: "passed" },
        { id: "reviewer-asked-to-edit", state: "passed" },
        { id: "reviewer-tries-to-delete", state: "passed" },
      ]);
      // The misbehaving case passed because its expected violation occurred.
      expect(recorded[3]?.violations.join("\n")).toMatch(/behavior\/forbidden-tool/);
      expect(readdirSync(join(copy, "cassettes", "opencode-agent"))).toHaveLength(4);

      // CI: strict replay, no key, inside a network namespace with only loopback.
      const replayed = await runSuite("replay", { VCR_MODE: "strict", CI: "true" }, true);
      expect(replayed).toEqual(recorded);
    },
    600_000,
  );
});
