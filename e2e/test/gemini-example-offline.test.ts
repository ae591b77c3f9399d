import { describe, expect, it } from "vitest";
import { copyExample, netnsReason, runExampleSuite } from "./example-suite.js";

/**
 * The Gemini example (examples/gemini-agent: the real gemini CLI through @evals/gemini-cli, judged by
 * cases in the shared vocabulary) replayed from its committed Gemini API recordings with the network
 * refused: in a network namespace with only loopback (`unshare -rn`), strict, as on an offline CI.
 * It runs a copy of the example inside the workspace's ignored tmp/ (so its reports go there).
 */

const copy = copyExample("gemini-agent");

describe("the Gemini example", () => {
  it.skipIf(netnsReason !== "")(
    `replays its recordings strictly with the network refused, every case judged as recorded ${netnsReason}`,
    async () => {
      const { verdicts, output } = await runExampleSuite(
        copy,
        "replay",
        { VCR_MODE: "strict", CI: "true" },
        true,
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
      expect(verdicts[2]?.violations.map((violation) => violation.split(":")[0])).toEqual(
        expect.arrayContaining(["behavior/forbidden-tool", "stop-on-failure/continued-after-failure"]),
      );
      expect(output).toMatch(/replayed/);
    },
    300_000,
  );
});
