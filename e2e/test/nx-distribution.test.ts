import { execFile } from "node:child_process";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createWorktree, type Worktree } from "@evals/worktree";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIn, userEnv, WORKSPACE } from "./packed.js";

/**
 * How eval suites spread over CI agents with Nx's own mechanisms, none of them a paid service
 * (docs/ci.md): every agent runs its share with EVALS_SHARD, and agents share results through Nx's
 * self-hosted remote cache (NX_SELF_HOSTED_REMOTE_CACHE_SERVER, Nx's HTTP cache API, served here by
 * an in-process server). An eval result is reused only when everything the eval reads is unchanged,
 * and never by another shard.
 */

const SUITE = "@evals/example-find-todos";
const TASK = `${SUITE}:eval`;
const nxEnv = { NX_DAEMON: "false", NX_NO_CLOUD: "true", NX_TUI: "false" };
const HASH_SCRIPT = join(WORKSPACE, "e2e", "scripts", "nx-task-hash.cjs");

function hashOf(cwd: string, task: string, env: Record<string, string> = {}): string {
  const { stdout } = runIn(cwd, process.execPath, [HASH_SCRIPT, task], {
    env: { ...nxEnv, ...env },
    timeoutMs: 180_000,
  });
  return (JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Record<string, string>)[task]!;
}

describe("the eval task's hash and EVALS_SHARD", () => {
  it("differs from shard to shard and from the whole run: no shard is served another's results", () => {
    const whole = hashOf(WORKSPACE, TASK);
    const first = hashOf(WORKSPACE, TASK, { EVALS_SHARD: "1/2" });
    const second = hashOf(WORKSPACE, TASK, { EVALS_SHARD: "2/2" });
    expect(new Set([whole, first, second]).size).toBe(3);
    expect(hashOf(WORKSPACE, TASK, { EVALS_SHARD: "1/2" })).toBe(first);
  });

  it("leaves the builds' hashes alone: every shard shares them", () => {
    const build = "@evals/harness:build-js";
    expect(hashOf(WORKSPACE, build, { EVALS_SHARD: "1/2" })).toBe(hashOf(WORKSPACE, build));
  });
});

/** An HTTP server speaking Nx's self-hosted remote cache API: PUT and GET /v1/cache/<hash>. */
function remoteCache(token: string) {
  const entries = new Map<string, Buffer>();
  const log: { method: string; hash: string; status: number }[] = [];
  const server: Server = createServer((request, response) => {
    const hash = /^\/v1\/cache\/([^/?]+)/.exec(request.url ?? "")?.[1];
    const answer = (status: number, body?: Buffer) => {
      log.push({ method: request.method ?? "", hash: hash ?? "", status });
      response.writeHead(status, body ? { "content-type": "application/octet-stream" } : {});
      response.end(body);
    };
    if (!hash) return answer(404);
    if (request.headers.authorization !== `Bearer ${token}`) return answer(401);
    if (request.method === "GET") {
      const entry = entries.get(hash);
      return entry ? answer(200, entry) : answer(404);
    }
    if (request.method === "PUT") {
      if (entries.has(hash)) return answer(409);
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        entries.set(hash, Buffer.concat(chunks));
        answer(200);
      });
      return;
    }
    answer(405);
  });
  return { server, entries, log };
}

/** `nx run <task>` as one CI agent: its own local cache and workspace data, the shared remote cache. */
function agentRun(cwd: string, agent: string, url: string, token: string): Promise<string> {
  const own = join(scratch, agent);
  return new Promise((resolve, reject) => {
    execFile(
      join(WORKSPACE, "node_modules", ".bin", "nx"),
      ["run", TASK, "--outputStyle=static"],
      {
        cwd,
        timeout: 540_000,
        maxBuffer: 64 * 1024 * 1024,
        env: userEnv({
          ...nxEnv,
          NX_CACHE_DIRECTORY: join(own, "cache"),
          NX_WORKSPACE_DATA_DIRECTORY: join(own, "workspace-data"),
          NX_SELF_HOSTED_REMOTE_CACHE_SERVER: url,
          NX_SELF_HOSTED_REMOTE_CACHE_ACCESS_TOKEN: token,
        }),
      },
      (error, stdout, stderr) =>
        error ? reject(new Error(`nx run ${TASK} failed:\n${stdout}\n${stderr}`)) : resolve(stdout + stderr),
    );
  });
}

const scratch = mkdtempSync(join(tmpdir(), "e2e-nx-distribution-"));

describe("CI agents sharing Nx's self-hosted remote cache", () => {
  const token = "e2e-token";
  const cache = remoteCache(token);
  let url: string;
  let worktree: Worktree;
  const inTree = (path: string) => join(worktree.path, path);
  const results = () => inTree("examples/find-todos/results");
  const runs: { output: string; hash: string; latest: string }[] = [];

  /** One more agent: a clean checkout (no results, no local cache) at the same path, after `change`. */
  async function nextAgent(change: () => void = () => {}) {
    rmSync(results(), { recursive: true, force: true });
    change();
    const hash = hashOf(worktree.path, TASK);
    const output = await agentRun(worktree.path, `agent-${runs.length + 1}`, url, token);
    runs.push({ output, hash, latest: readFileSync(join(results(), "latest.json"), "utf8") });
  }

  beforeAll(async () => {
    await new Promise<void>((done) => cache.server.listen(0, "127.0.0.1", done));
    url = `http://127.0.0.1:${(cache.server.address() as AddressInfo).port}`;
    // One checkout path for every agent, as CI machines check out at the same path (the eval
    // target's `checkout` input keeps results of one path from another).
    worktree = await createWorktree(WORKSPACE, { name: "nx-agents", dirty: "include" });
    symlinkSync(join(WORKSPACE, "node_modules"), inTree("node_modules"), "dir");
    const recording = join("examples", "find-todos", "cassettes", "find-todos");
    const file = join(
      recording,
      readdirSync(inTree(recording)).find((name) => name.startsWith("skill-then-grep."))!,
    );
    await nextAgent();
    await nextAgent();
    // A change the eval does not read: the docs.
    await nextAgent(() => appendFileSync(inTree("README.md"), "\nOne more line.\n"));
    // A change it does read: a recording (here only its formatting, so the replay still passes).
    await nextAgent(() => appendFileSync(inTree(file), "\n"));
  }, 900_000);

  afterAll(async () => {
    await worktree?.remove();
    await new Promise((done) => cache.server.close(done));
    rmSync(scratch, { recursive: true, force: true });
  });

  const fromRemote = (output: string) => new RegExp(`nx run ${TASK}.*\\[remote cache\\]`).test(output);
  const ranHere = (output: string) => !new RegExp(`nx run ${TASK}.*\\[(remote|local) cache\\]`).test(output);

  it("the first agent runs the suite and uploads its results", () => {
    const [first] = runs;
    expect(first!.output).toContain(`nx run ${TASK}`);
    expect(ranHere(first!.output)).toBe(true);
    expect(cache.log).toContainEqual({ method: "PUT", hash: first!.hash, status: 200 });
  });

  it("the next agent gets them from the remote cache, without running a case", () => {
    const [first, second] = runs;
    expect(second!.hash).toBe(first!.hash);
    expect(fromRemote(second!.output)).toBe(true);
    expect(cache.log).toContainEqual({ method: "GET", hash: first!.hash, status: 200 });
    expect(second!.latest).toBe(first!.latest);
  });

  it("an agent whose checkout differs in a file the eval does not read reuses them too", () => {
    const [first, , third] = runs;
    expect(third!.hash).toBe(first!.hash);
    expect(fromRemote(third!.output)).toBe(true);
    expect(third!.latest).toBe(first!.latest);
  });

  it("an agent whose recording changed runs the suite again and uploads under a new key", () => {
    const [first, , , fourth] = runs;
    expect(fourth!.hash).not.toBe(first!.hash);
    expect(ranHere(fourth!.output)).toBe(true);
    expect(cache.log).toContainEqual({ method: "GET", hash: fourth!.hash, status: 404 });
    expect(cache.log).toContainEqual({ method: "PUT", hash: fourth!.hash, status: 200 });
  });
});
