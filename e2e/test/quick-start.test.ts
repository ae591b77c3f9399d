import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canRefuseNetwork, networkRefused } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLAUDE_BIN,
  type CommandResult,
  installTarballs,
  pack,
  publishablePackages,
  runIn,
  tarballsFor,
  WORKSPACE,
} from "./packed.js";

/**
 * The root README's quick start, done as a newcomer would: in an empty folder outside the workspace,
 * with only the packed tarballs (and their registry dependencies) installed, the README's own blocks
 * (the fixture commands, `cases.yaml`, `models.mjs`, the record and replay commands) are written and
 * run as they are, so the README and this test cannot drift apart. The replay runs in a network
 * namespace with only loopback (`unshare -rn`): the network is refused, as on an offline CI.
 */

/** The README's quick-start blocks by name: ```<lang> quick-start:<name>. */
function quickStartBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const match of text.matchAll(/^```\w+ quick-start:(\S+)\n([\s\S]*?)^```$/gm)) {
    blocks.set(match[1]!, match[2]!);
  }
  return blocks;
}

const README = readFileSync(join(WORKSPACE, "README.md"), "utf8");
const blocks = quickStartBlocks(README);
const block = (name: string): string => {
  const source = blocks.get(name);
  if (source === undefined) throw new Error(`README.md has no \`quick-start:${name}\` block`);
  return source;
};

/** The @evals packages the README's install command names; the rest (the claude CLI) is the workspace's. */
const installed = (block("install").match(/@evals\/[a-z-]+/g) ?? []).filter(
  (name, index, all) => all.indexOf(name) === index,
);

/** Runs a README shell block with sh in the project; in a network namespace with only loopback when `offline`. */
function shell(project: string, source: string, options: { offline?: boolean } = {}): CommandResult {
  const script = `set -e\n${source}`;
  const command = options.offline ? networkRefused(["sh", "-c", script]) : ["sh", "-c", script];
  return runIn(project, command[0]!, command.slice(1), {
    env: { EVALS_CLAUDE_BIN: CLAUDE_BIN },
    timeoutMs: 240_000,
    allowFailure: true,
  });
}

const canIsolate = canRefuseNetwork();
const isolateReason = canIsolate
  ? ""
  : " (skipped: unprivileged network namespaces, unshare -rn, are not available here)";

let root: string;
let project: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "evals-quick-start-"));
  project = join(root, "my-evals");
  // Only what the README installs, and the packages of ours those depend on, are packed and installed.
  const needed = tarballsFor(
    installed,
    publishablePackages().map((pkg) => ({ ...pkg, tarball: "", files: [] })),
  );
  installTarballs(
    project,
    needed.map((pkg) => pack(pkg, join(root, "tarballs"))),
  );
}, 600_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("the README's quick start", () => {
  it("has every step as a block, and installs the harness, the Claude Code runner and the scripted-model helpers", () => {
    expect([...blocks.keys()]).toEqual([
      "install",
      "fixture",
      "cases.yaml",
      "models.mjs",
      "record",
      "replay",
      "summary",
    ]);
    expect(installed).toEqual(["@evals/harness", "@evals/claude-code", "@evals/vcr"]);
    expect(block("install")).toContain("@anthropic-ai/claude-code@2.1.330");
  });

  it.skipIf(!canIsolate)(
    `in an empty project with the packed tarballs: records from the scripted model, replays 3 trials with the network refused, same verdict${isolateReason}`,
    () => {
      expect(readdirSync(project).sort()).toEqual([
        ".npmrc",
        "node_modules",
        "package-lock.json",
        "package.json",
      ]);
      expect(shell(project, block("fixture")).status).toBe(0);
      writeFileSync(join(project, "cases.yaml"), block("cases.yaml"));
      writeFileSync(join(project, "models.mjs"), block("models.mjs"));

      const recorded = shell(project, block("record"));
      expect(recorded.status, recorded.stdout + recorded.stderr).toBe(0);
      expect(recorded.stdout).toContain("1 case(s), 1 trial(s): 1 passed, 0 failed");
      const recordedVerdict = JSON.parse(readFileSync(join(project, "results", "latest.json"), "utf8"));
      expect(recordedVerdict.cases).toMatchObject([{ id: "list-notes", status: "passed" }]);

      // One recording, named by the case id (not the case file's name, so renaming it keeps the
      // recording): nothing of this machine (paths, user, temp folder).
      const recordings = readdirSync(join(project, "cassettes"));
      expect(recordings).toHaveLength(1);
      expect(recordings[0]).toMatch(/^list-notes\.[0-9a-f]{8}\.recording\.json$/);
      rmSync(join(project, "results"), { recursive: true });

      // The replay, with the network refused: a connection out of the namespace fails at once.
      const refused = shell(
        project,
        `node -e 'require("net").connect(443, "1.1.1.1").on("error", (e) => { console.log(e.code); process.exit(0) })'`,
        { offline: true },
      );
      expect(refused.stdout.trim()).toBe("ENETUNREACH");
      const replayed = shell(project, block("replay"), { offline: true });
      expect(replayed.status, replayed.stdout + replayed.stderr).toBe(0);
      // Nothing on stderr but npm's own warnings about this machine's npm configuration.
      expect(replayed.stderr.split("\n").filter((line) => line && !line.startsWith("npm warn"))).toEqual([]);
      for (const line of block("summary").trim().split("\n")) expect(replayed.stdout).toContain(line);
      expect(replayed.stdout).toContain("replayed");

      const latest = JSON.parse(readFileSync(join(project, "results", "latest.json"), "utf8"));
      expect(latest.cases).toMatchObject([{ id: "list-notes", status: recordedVerdict.cases[0].status }]);
      expect(latest.cases[0].trials).toHaveLength(3);
      for (const report of ["latest.json", "junit.xml", "report.html"]) {
        expect(existsSync(join(project, "results", report)), report).toBe(true);
      }
      expect(readFileSync(join(project, "results", "report.html"), "utf8")).toContain("list-notes");
      expect(readdirSync(join(project, "test-output")).length).toBeGreaterThanOrEqual(4);
      // Nothing was recorded again.
      expect(readdirSync(join(project, "cassettes"))).toEqual(recordings);
    },
    600_000,
  );

  it.skipIf(!canIsolate)(
    `fails a case that the recorded behaviour breaks, offline, with exit code 1 and the reason${isolateReason}`,
    () => {
      // The same case (same prompt and agent: the recording the test above made) in another file, with a
      // rule the agent breaks: without --suite the recording is found by the case id, whatever the file.
      writeFileSync(
        join(project, "no-bash.yaml"),
        block("cases.yaml").replace("mustUseTools: [Bash]", "mustNotUseTools: [Bash]"),
      );
      const failed = shell(project, "npx evals run no-bash.yaml --mode strict --out results-no-bash", {
        offline: true,
      });
      expect(failed.status, failed.stdout + failed.stderr).toBe(1);
      expect(failed.stdout).toContain("1 case(s), 1 trial(s): 0 passed, 1 failed");
      expect(failed.stdout).toContain(
        'forbidden-tool: Bash "ls notes" was called, but Bash must not be used',
      );
      const latest = JSON.parse(readFileSync(join(project, "results-no-bash", "latest.json"), "utf8"));
      expect(latest.cases).toMatchObject([{ id: "list-notes", status: "failed" }]);
    },
    300_000,
  );
});
