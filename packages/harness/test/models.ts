import {
  countToolResults,
  lastToolResult,
  type ModelServer,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "@evals/vcr";

/** Starts a scripted loopback model for the body, and closes it afterwards. */
export async function withModel<T>(
  script: Parameters<typeof scripted>[0],
  body: (server: ModelServer) => Promise<T>,
): Promise<T> {
  const server = await startModelServer({ source: scripted(script) });
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

/** Lists files with Bash, reads `<dir>/a.txt`, then reports. */
export function listThenRead(dir: string): Parameters<typeof scripted>[0] {
  return (request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(text("Listing."), toolUse("Bash", { command: "ls", description: "list files" }));
      case 1:
        return reply(toolUse("Read", { file_path: `${dir}/a.txt` }));
      default:
        return reply(text(`Done: ${lastToolResult(request)?.text.slice(0, 40)}`));
    }
  };
}

/** A model that keeps calling tools forever. */
export const neverDone: Parameters<typeof scripted>[0] = (request) =>
  reply(toolUse("Bash", { command: `echo step-${countToolResults(request)}`, description: "step" }));
