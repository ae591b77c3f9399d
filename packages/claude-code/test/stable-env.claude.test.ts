import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stableLocale } from "@evals/core/process";
import { withModel } from "@evals/test-kit/models";
import { countToolResults, lastToolResult, reply, text, toolUse } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent, skipIfNoClaude } from "../src/index.js";

/**
 * Observed: a Bash `npm test` in the agent's run printed "New minor version of npm available…" on
 * some runs (npm checks its registry for a newer npm under every fresh HOME), so the tool output the
 * model saw, and a replay matches on, changed between runs. Here the registry is a loopback one
 * that always has a newer npm, which makes the notice certain instead of a matter of the day.
 */

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const NOTICE = /version of npm available/;

let root: string;
let project: string;
let registry: Server;
let registryUrl: string;
const registryRequests: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "harness-stable-env-"));
  project = join(root, "project");
  mkdirSync(project);
  // The script takes a moment, so npm's (unawaited) update check is done before npm exits.
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: "stable-env-project",
      version: "1.0.0",
      private: true,
      scripts: { hello: `node -e "setTimeout(() => console.log('hello-from-script'), 1500)"` },
    }),
  );
  registry = createServer((request, response) => {
    registryRequests.push(`${request.method} ${request.url}`);
    if (request.url === "/npm") {
      response.setHeader("content-type", "application/json");
      response.end(
        JSON.stringify({
          name: "npm",
          "dist-tags": { latest: "99.0.0" },
          versions: {
            "99.0.0": { name: "npm", version: "99.0.0", dist: { tarball: `${registryUrl}/npm-99.0.0.tgz` } },
          },
        }),
      );
      return;
    }
    response.statusCode = 404;
    response.end("{}");
  });
  await new Promise<void>((done) => registry.listen(0, "127.0.0.1", done));
  registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => registry.close(done));
  rmSync(root, { recursive: true, force: true });
});

/** Runs the agent on one Bash command and returns the tool output the model was sent. */
async function bashOutputSeenByModel(command: string, env: Record<string, string | undefined>) {
  let seen: string | undefined;
  const result = await withModel(
    (request) => {
      if (countToolResults(request) === 0)
        return reply(toolUse("Bash", { command, description: "run the script", timeout: 60_000 }));
      seen = lastToolResult(request)?.text;
      return reply(text("done"));
    },
    (server) =>
      runAgent({
        prompt: "run the script",
        claudeBin,
        baseUrl: server.url,
        cwd: project,
        outputRoot: join(root, "out"),
        allowedTools: ["Bash"],
        env: { npm_config_registry: registryUrl, ...env },
        timeoutMs: 120_000,
      }),
  );
  expect(result.error, result.stderr).toBeUndefined();
  return seen ?? "";
}

describe("the agent's environment is quiet and stable (real claude CLI, scripted model)", () => {
  const command = `npm run hello 2>&1; date +%Z; echo "locale=$LC_ALL color=$NO_COLOR/$FORCE_COLOR"`;

  it("reproduces the npm update notice in the tool output when the quieting is taken away", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    registryRequests.length = 0;
    const output = await bashOutputSeenByModel(command, {
      npm_config_update_notifier: undefined,
      NO_UPDATE_NOTIFIER: undefined,
    });
    expect(output).toContain("hello-from-script");
    expect(output).toMatch(NOTICE);
    expect(registryRequests).toContain("GET /npm");
  }, 240_000);

  it("by default, npm prints no notice and never asks the registry; TZ, locale and colors reach the tool", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    registryRequests.length = 0;
    const output = await bashOutputSeenByModel(command, {});
    expect(output).toContain("hello-from-script");
    expect(output).not.toMatch(NOTICE);
    expect(registryRequests).toEqual([]);
    expect(output).toContain("UTC");
    expect(output).toContain(`locale=${stableLocale()} color=1/0`);
  }, 240_000);
});
