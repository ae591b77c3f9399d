// Replays a Gemini recording strictly through geminiRunner and the real gemini CLI, meant to run
// inside a network namespace that has only loopback (`unshare -rn`). Prints one JSON line: the
// run, the exit code, the replay's report and divergences, and whether a public address was reachable.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const { vcrDist, runnerDist, recording, prompt, outputRoot } = JSON.parse(process.argv[2]);
const { replaying, startModelServer } = await import(vcrDist);
const { geminiRunner } = await import(runnerDist);

const outbound = await new Promise((resolve) => {
  const socket = connect({ host: "192.0.2.1", port: 443, timeout: 2000 });
  socket.on("connect", () => resolve("connected"));
  socket.on("timeout", () => {
    socket.destroy();
    resolve("timeout");
  });
  socket.on("error", (error) => resolve(error.code));
});

const source = replaying(recording);
const server = await startModelServer({ source, modelApi: "gemini" });
const cwd = mkdtempSync(join(tmpdir(), "evals-gemini-offline-"));
writeFileSync(join(cwd, "notes.txt"), "hello world\n");
const result = await geminiRunner.run(
  { prompt, cwd, baseUrl: server.url, outputRoot, timeoutMs: 120_000 },
  {},
);
await server.close();
rmSync(cwd, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({
    run: result.run,
    exit_code: result.exit_code,
    stderr: result.stderr,
    report: source.report(),
    divergences: source.divergences.length,
    unplayed: source.unplayed().length,
    outbound,
  })}\n`,
);
