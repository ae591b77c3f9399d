import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeCodeRunner, skipIfNoClaude } from "@evals/claude-code";
import { toolSequence } from "@evals/core";
import {
  countToolResults,
  lastToolResult,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTrial } from "../src/index.js";

/** The real claude CLI installed at the workspace root (2.1.330). */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "harness-secrets-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every regular file under `dir`, recursively (links are not followed). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const stat = lstatSync(path);
    if (stat.isDirectory()) out.push(...filesUnder(path));
    else if (stat.isFile()) out.push(path);
  }
  return out;
}

/** Where each planted secret was found: "file: secret" entries. */
function findSecrets(dirs: string[], secrets: string[]): string[] {
  const found: string[] = [];
  for (const dir of dirs) {
    for (const file of filesUnder(dir)) {
      const content = readFileSync(file, "latin1");
      for (const secret of secrets) if (content.includes(secret)) found.push(`${file}: ${secret}`);
    }
  }
  return found;
}

describe("secrets the agent prints are in no file the framework writes", () => {
  it("a recorded run that cats a key file and prints its env leaves 0 secrets in output, sandbox and recording", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const project = join(root, "project");
    const outputRoot = join(root, "out");
    const cassettes = join(root, "cassettes");
    mkdirSync(project);
    const nonce = randomBytes(6).toString("hex");
    const secrets = {
      fileKey: `sk-ant-api03-PLANTED${nonce}`,
      custom: `PLANTED-CUSTOM-${nonce}`,
      githubToken: `planted-gh-token-${nonce}`,
      header: `planted-header-${nonce}`,
      password: `planted-password-${nonce}`,
    };
    writeFileSync(join(project, "secret.txt"), `api_key=${secrets.fileKey}\nnote=${secrets.custom}\n`);

    // The model answers with the secrets it saw: they travel through tool results, hook events,
    // the stream, the transcripts, the final result and the recording.
    const seen: string[] = [];
    const headersSeen: string[] = [];
    const upstream = await startModelServer({
      source: scripted((request, context) => {
        headersSeen.push(JSON.stringify(context?.headers ?? {}));
        const last = lastToolResult(request)?.text ?? "";
        seen.push(last);
        switch (countToolResults(request)) {
          case 0:
            return reply(toolUse("Bash", { command: "cat secret.txt", description: "read the key" }));
          case 1:
            return reply(toolUse("Bash", { command: "env", description: "show env" }));
          default:
            return reply(text(`Found: ${seen.join(" ").slice(0, 4000)}`));
        }
      }),
    });
    let sandboxDir: string | undefined;
    try {
      const controller = new AbortController();
      const result = await runTrial(
        {
          suite: "secrets",
          caseId: "planted",
          caseValue: {},
          trial: 0,
          trials: 1,
          runId: `secrets-${nonce}`,
          signal: controller.signal,
          outputRoot,
          cassette: { mode: "record", dir: cassettes, upstream: upstream.url },
        },
        (context) =>
          context.runAgent(
            {
              prompt: "find the key",
              options: { claudeBin },
              cwd: project,
              allowedTools: ["Bash"],
              keepSandbox: "always",
              timeoutMs: 120_000,
              env: {
                GITHUB_TOKEN: secrets.githubToken,
                ANTHROPIC_CUSTOM_HEADERS: `X-Planted-Header: ${secrets.header}`,
                MY_DB_PASSWORD: secrets.password,
              },
              redact: { patterns: [/PLANTED-CUSTOM-[0-9a-f]+/] },
            },
            claudeCodeRunner,
          ),
      );
      sandboxDir = (result as { sandbox_dir?: string }).sandbox_dir;
      expect(toolSequence(result.run)).toEqual(["Bash", "Bash"]);
      // The secrets really went through the run: the model saw them all.
      const all = seen.join("\n");
      for (const secret of [secrets.fileKey, secrets.custom, secrets.githubToken, secrets.password]) {
        expect(all).toContain(secret);
      }
      expect(headersSeen.join("\n")).toContain(secrets.header);

      expect(sandboxDir).toBeDefined();
      expect(filesUnder(cassettes).filter((file) => file.endsWith(".recording.json"))).toHaveLength(1);
      const found = findSecrets([outputRoot, sandboxDir!, cassettes], Object.values(secrets));
      expect(found).toEqual([]);
      // The run's files are still there, redacted rather than dropped.
      const stream = readFileSync(
        join(outputRoot, "test-output", `secrets-${nonce}`, "stream.jsonl"),
        "utf8",
      );
      expect(stream).toContain("[REDACTED]");
      expect(JSON.stringify(result.run)).toContain("[REDACTED]");
    } finally {
      await upstream.close();
      if (sandboxDir) rmSync(sandboxDir, { recursive: true, force: true });
    }
  });

  it("a worktree trial whose agent writes them into files leaves 0 secrets in its outcome", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const repo = join(root, "repo");
    const outputRoot = join(root, "worktree-out");
    mkdirSync(repo);
    const nonce = randomBytes(6).toString("hex");
    const secrets = { fileKey: `sk-ant-api03-PLANTED${nonce}`, token: `planted-gh-token-${nonce}` };
    const git = (...args: string[]) =>
      execFileSync("git", ["-C", repo, "-c", "user.name=t", "-c", "user.email=t@evals.invalid", ...args]);
    git("init", "-q");
    writeFileSync(join(repo, "secret.txt"), `api_key=${secrets.fileKey}\n`);
    git("add", "--all");
    git("commit", "-q", "-m", "initial");
    const runId = `worktree-secrets-${nonce}`;
    await runTrial(
      {
        suite: "secrets",
        caseId: "worktree",
        caseValue: {},
        trial: 0,
        trials: 1,
        runId,
        signal: new AbortController().signal,
        outputRoot,
        worktree: { repo },
        model: () =>
          scripted((request) =>
            countToolResults(request) === 0
              ? reply(
                  toolUse("Bash", {
                    command: "cp secret.txt copy.txt && env > env.txt",
                    description: "dump",
                  }),
                )
              : reply(text("done")),
          ),
      },
      (context) =>
        context.runAgent(
          {
            prompt: "dump",
            options: { claudeBin },
            allowedTools: ["Bash"],
            timeoutMs: 120_000,
            env: { GITHUB_TOKEN: secrets.token },
          },
          claudeCodeRunner,
        ),
    );
    const runDir = join(outputRoot, "test-output", runId);
    const patch = readFileSync(join(runDir, "outcome.patch"), "utf8");
    // The agent's files are in the outcome, their secrets are not.
    expect(patch).toContain("copy.txt");
    expect(patch).toContain("env.txt");
    expect(patch).toContain("[REDACTED]");
    expect(findSecrets([outputRoot], Object.values(secrets))).toEqual([]);
  });
});
