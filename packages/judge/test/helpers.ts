import { readFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { parseJsonl, type Run, runFromStreamJson } from "@evals/core";
import { type MessagesRequest, reply, toolUse } from "@evals/vcr";

/** A real Claude Code 2.1.330 run (fixtures/claude-code-2.1.330/multi-tool): it ends "All steps done." */
export const PROMPT = "Run the three steps of the checklist, then say when all steps are done.";
export function realRun(): Run {
  const file = fileURLToPath(
    new URL("../../../fixtures/claude-code-2.1.330/multi-tool/stream.jsonl", import.meta.url),
  );
  return runFromStreamJson(parseJsonl(readFileSync(file, "utf8"), file), { prompts: [PROMPT] });
}

/** The run with another final answer. */
export function withAnswer(run: Run, answer: string): Run {
  return {
    ...run,
    events: run.events.map((event) => (event.type === "final_result" ? { ...event, result: answer } : event)),
  };
}

/** The user message of a judge request. */
export function judgePrompt(request: MessagesRequest): string {
  const content = request.messages[0]!.content;
  return typeof content === "string"
    ? content
    : content.map((block) => (block as { text?: string }).text ?? "").join("");
}

/** What the judge is asked: the answer and the rubric's criteria. */
export function readJudgePrompt(request: MessagesRequest): { answer: string; criteria: string[] } {
  const text = judgePrompt(request);
  const answer = /<answer>\n([\s\S]*?)\n<\/answer>/.exec(text)?.[1] ?? "";
  const rubric = /<rubric>\n([\s\S]*?)\n<\/rubric>/.exec(text)?.[1] ?? "";
  const criteria = rubric
    .split("\n")
    .filter(Boolean)
    .map((line) => line.replace(/^\d+\. /, ""));
  return { answer, criteria };
}

/**
 * A scripted judge model: a criterion is met when the answer contains its quoted word
 * (`Says "done"`), with a reason that says so.
 */
export function keywordJudge(request: MessagesRequest) {
  const { answer, criteria } = readJudgePrompt(request);
  return reply(
    toolUse("record_rubric_verdict", {
      criteria: criteria.map((criterion, index) => {
        const word = /"([^"]+)"/.exec(criterion)?.[1] ?? criterion;
        const met = answer.toLowerCase().includes(word.toLowerCase());
        return {
          criterion: index + 1,
          met,
          reasoning: met ? `the answer says "${word}"` : `the answer never says "${word}"`,
        };
      }),
      summary: `graded ${criteria.length} criteria`,
    }),
  );
}

/** A loopback listener that counts connections and drops them: an upstream nobody may call. */
export async function startTrap() {
  const connections: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections.push("connected");
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
