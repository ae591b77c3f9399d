import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { closedLoopbackPort } from "@evals/test-kit/models";
import { afterAll, describe, expect, it } from "vitest";
import { claudeAvailable, runAgent } from "../src/index.js";

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const root = mkdtempSync(join(tmpdir(), "harness-unreachable-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!claudeAvailable({ claudeBin }).available)(
  "a loopback model server that is not running",
  () => {
    it("is named as such, not blamed on the internet, a firewall or a proxy", async () => {
      const port = await closedLoopbackPort();
      const result = await runAgent({
        prompt: "Say hi.",
        claudeBin,
        cwd: root,
        outputRoot: root,
        baseUrl: `http://127.0.0.1:${port}`,
        // One attempt: the CLI's retries against a closed port take minutes.
        env: { CLAUDE_CODE_MAX_RETRIES: "0" },
      });
      expect(result.error).toMatch(
        new RegExp(
          `^the model server at http://127\\.0\\.0\\.1:${port} \\(a local replay or scripted model server\\) could not be reached: it is not running`,
        ),
      );
    });
  },
);
