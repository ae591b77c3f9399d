// Replays a recording with the real claude CLI, meant to run inside a network namespace that has
// only loopback (`unshare -rn`). Prints one JSON line: what the CLI printed, what the replay
// server answered, and every connection a refusing proxy saw.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";

const { vcrDist, claudeBin, recording, prompt, files } = JSON.parse(process.argv[2]);
const { replaying, startModelServer } = await import(vcrDist);

const connections = [];
const trap = createServer((socket) => {
  connections.push("connect");
  socket.on("error", () => undefined);
  socket.destroy();
});
await new Promise((resolve) => trap.listen(0, "127.0.0.1", resolve));
const trapUrl = `http://127.0.0.1:${trap.address().port}`;

const server = await startModelServer({ source: replaying(recording) });
const home = mkdtempSync(join(tmpdir(), "vcr-netns-"));
const cwd = join(home, "project");
mkdirSync(cwd);
mkdirSync(join(home, "tmp"));
for (const [name, content] of Object.entries(files)) writeFileSync(join(cwd, name), content);

// What this namespace can reach: the interfaces, and whether a public address is routable.
const interfaces = Object.keys(networkInterfaces());
const outbound = await new Promise((resolve) => {
  const socket = connect({ host: "192.0.2.1", port: 443, timeout: 2000 });
  socket.on("connect", () => resolve("connected"));
  socket.on("timeout", () => {
    socket.destroy();
    resolve("timeout");
  });
  socket.on("error", (error) => resolve(error.code));
});

const child = spawn(claudeBin, ["-p", prompt, "--output-format", "stream-json", "--verbose"], {
  cwd,
  stdio: ["ignore", "pipe", "pipe"],
  env: {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    TMPDIR: join(home, "tmp"),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_MAX_RETRIES: "1",
    FORCE_COLOR: "0",
    ...server.env(),
    HTTP_PROXY: trapUrl,
    HTTPS_PROXY: trapUrl,
    NO_PROXY: "127.0.0.1",
  },
});
let stdout = "";
let stderr = "";
child.stdout.on("data", (chunk) => {
  stdout += chunk;
});
child.stderr.on("data", (chunk) => {
  stderr += chunk;
});
const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
const exitCode = await new Promise((resolve) => child.on("close", resolve));
clearTimeout(timer);
await server.close();
trap.close();
rmSync(home, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({
    exitCode,
    stdout,
    stderr,
    interfaces,
    outbound,
    served: server.interactions.length,
    recorded: server.source.recording.interactions.length,
    divergences: server.source.divergences.length,
    connections,
  })}\n`,
);
