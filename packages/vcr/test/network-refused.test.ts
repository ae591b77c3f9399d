import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { canRefuseNetwork, networkRefused } from "../src/index.js";

// Inside: a loopback server answers its own connection, a public address cannot be reached.
const probe = `
  const net = require("node:net");
  const { networkInterfaces } = require("node:os");
  const attempt = (options) => new Promise((resolve) => {
    const socket = net.connect({ ...options, timeout: 3000 });
    socket.on("connect", () => { socket.destroy(); resolve("connected"); });
    socket.on("timeout", () => { socket.destroy(); resolve("timeout"); });
    socket.on("error", (error) => resolve(error.code));
  });
  const server = net.createServer((socket) => socket.end()).listen(0, "127.0.0.1", async () => {
    const loopback = await attempt({ host: "127.0.0.1", port: server.address().port });
    const outside = await attempt({ host: "192.0.2.1", port: 443 });
    server.close();
    console.log(JSON.stringify({ interfaces: Object.keys(networkInterfaces()), loopback, outside, args: process.argv.slice(1) }));
  });
`;

describe("networkRefused", () => {
  it("wraps the command in a network namespace with loopback up, passing its arguments as they are", () => {
    expect(networkRefused(["node", "a b", "'c'"])).toEqual([
      "unshare",
      "-rn",
      "sh",
      "-c",
      'ip link set lo up && exec "$0" "$@"',
      "node",
      "a b",
      "'c'",
    ]);
    expect(() => networkRefused([])).toThrow(/name the command/);
  });

  it.skipIf(!canRefuseNetwork())(
    `refuses every address but loopback${canRefuseNetwork() ? "" : " (skipped: unshare -rn with ip is not available here)"}`,
    () => {
      const [file, ...args] = networkRefused([process.execPath, "-e", probe, "a b", "$HOME"]);
      const result = spawnSync(file!, args, { encoding: "utf8", timeout: 30_000 });
      expect(result.status, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        interfaces: ["lo"],
        loopback: "connected",
        outside: "ENETUNREACH",
        args: ["a b", "$HOME"],
      });
    },
  );
});
