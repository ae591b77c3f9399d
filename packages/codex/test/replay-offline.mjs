// Replays a recording with the real codex CLI through @evals/codex, meant to run inside a network
// namespace that has only loopback (`unshare -rn`). Prints one JSON line: the run, what the replay
// served, and what this namespace can reach.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";

const { vcrDist, codexDist, recording, prompt, files } = JSON.parse(process.argv[2]);
const { replaying, startModelServer } = await import(vcrDist);
const { runCodex } = await import(codexDist);

const source = replaying(recording);
const server = await startModelServer({ source });
const cwd = mkdtempSync(join(tmpdir(), "codex-offline-"));
for (const [name, content] of Object.entries(files)) writeFileSync(join(cwd, name), content);
const outbound = await new Promise((resolve) => {
  const socket = connect({ host: "192.0.2.1", port: 443, timeout: 2000 });
  socket.on("connect", () => resolve("connected"));
  socket.on("timeout", () => {
    socket.destroy();
    resolve("timeout");
  });
  socket.on("error", (error) => resolve(error.code));
});
const outputRoot = mkdtempSync(join(tmpdir(), "codex-out-"));
const result = await runCodex({
  prompt,
  cwd,
  baseUrl: server.url,
  outputRoot,
});
await server.close();
for (const dir of [cwd, outputRoot]) rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    cwd,
    run: result.run,
    error: result.error,
    interfaces: Object.keys(networkInterfaces()),
    outbound,
    divergences: source.divergences.length,
    report: source.report(),
    unplayed: source.unplayed().length,
  }),
);
