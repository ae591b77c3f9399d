import { createServer, type Socket } from "node:net";

/**
 * A loopback "proxy" that records every connection and refuses it: point HTTP_PROXY/HTTPS_PROXY
 * at it and any request the CLI would send to the network shows up in `connections`.
 */
export async function startProxyTrap() {
  const connections: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    const position = connections.push("(connected, sent nothing)") - 1;
    socket.once("data", (chunk) => {
      connections[position] = chunk.toString("latin1").split("\r\n")[0] ?? "";
      socket.end("HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
    });
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    connections,
    env: {
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      ALL_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      all_proxy: url,
      NO_PROXY: "127.0.0.1,localhost",
      no_proxy: "127.0.0.1,localhost",
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
