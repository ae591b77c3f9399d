import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ModelServer, reply, scripted, startModelServer, text } from "@evals/vcr";
import { afterEach, describe, expect, it } from "vitest";
import { runOpenCode } from "../src/index.js";

// runOpenCode with a runId that is a path, not a name: it must be refused (core's run-id rule)
// before the run folder, the sandbox or the CLI exist. The model server is there so that a runner
// that does not check the id runs the real `opencode` CLI and writes where the id points.
const dirs: string[] = [];
const servers: ModelServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

describe("runOpenCode's runId", () => {
  it.each([
    ["../escaped", '"../escaped": it contains "/"'],
    ["a/b", '"a/b": it contains "/"'],
    ["..", '"..": it contains ".."'],
  ])(
    "refuses %j before anything is written",
    async (runId, problem) => {
      const server = await startModelServer({ source: scripted(() => reply(text("Done."))) });
      servers.push(server);
      const cwd = temp("oc-runid-work-");
      writeFileSync(join(cwd, "a.txt"), "alpha\n");
      const root = join(temp("oc-runid-out-"), "root");
      const sandboxesBefore = readdirSync(tmpdir()).filter((name) => name.startsWith("evals-opencode-"));

      await expect(
        runOpenCode({ prompt: "hi", cwd, baseUrl: server.url, runId, outputRoot: root, timeoutMs: 60_000 }),
      ).rejects.toThrow(`Invalid run id ${problem}`);

      // Nothing under the output root, nothing beside it (where "../escaped" points), no sandbox.
      expect(existsSync(root)).toBe(false);
      expect(readdirSync(join(root, ".."))).toEqual([]);
      expect(readdirSync(tmpdir()).filter((name) => name.startsWith("evals-opencode-"))).toEqual(
        sandboxesBefore,
      );
    },
    120_000,
  );
});
