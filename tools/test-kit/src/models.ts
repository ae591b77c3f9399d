// Scripted loopback Claude models shared by the runner and engine tests (@evals/vcr's scripted source).
import { createServer } from "node:net";
import {
  countToolResults,
  isSubagentRequest,
  lastToolResult,
  type ModelServer,
  reply,
  scripted,
  scriptedGemini,
  startModelServer,
  text,
  toolUse,
} from "@evals/vcr";

/** Starts a scripted loopback model for the body, and closes it afterwards. */
export function withModel<T>(
  script: Parameters<typeof scripted>[0],
  body: (server: ModelServer) => Promise<T>,
): Promise<T> {
  return serving(startModelServer({ source: scripted(script) }), body);
}

/** withModel for the Gemini API: a scripted loopback Gemini for the body, closed afterwards. */
export function withGeminiModel<T>(
  script: Parameters<typeof scriptedGemini>[0],
  body: (server: ModelServer) => Promise<T>,
): Promise<T> {
  return serving(startModelServer({ source: scriptedGemini(script), modelApi: "gemini" }), body);
}

async function serving<T>(
  started: Promise<ModelServer>,
  body: (server: ModelServer) => Promise<T>,
): Promise<T> {
  const server = await started;
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

/** A loopback port nothing listens on (bound, then released): a model server that is down. */
export async function closedLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
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

/** The parent delegates to a general-purpose subagent that runs one Bash command. */
export const delegate: Parameters<typeof scripted>[0] = (request) => {
  if (isSubagentRequest(request)) {
    return countToolResults(request) === 0
      ? reply(toolUse("Bash", { command: "echo from-child", description: "child echo" }))
      : reply(text(`child saw ${lastToolResult(request)?.text}`));
  }
  return countToolResults(request) === 0
    ? reply(
        toolUse("Agent", {
          subagent_type: "general-purpose",
          description: "child echo",
          prompt: "SUBTASK: run echo from-child",
          run_in_background: false,
        }),
      )
    : reply(text("parent done"));
};

/** A model that keeps calling tools forever. */
export const neverDone: Parameters<typeof scripted>[0] = (request) =>
  reply(toolUse("Bash", { command: `echo step-${countToolResults(request)}`, description: "step" }));
