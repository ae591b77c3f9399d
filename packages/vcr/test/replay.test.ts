import { describe, expect, it } from "vitest";
import {
  type Interaction,
  type Recording,
  replaying,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "../src/index.js";
import { recordingFromInteractions } from "../src/recording.js";
import { DIVERGENCE_STATUS } from "../src/replay-source.js";

const env = (cwd: string) =>
  `# Environment\n - Primary working directory: ${cwd}\n - Platform: linux\n\nToday's date is 2026-11-22.`;

const body = (prompt: string, cwd = "/rec/project", extra: unknown[] = []) => ({
  model: "claude-test",
  stream: true,
  metadata: { user_id: `{"session_id":"${Math.random()}"}` },
  messages: [
    { role: "user", content: [{ type: "text", text: prompt }] },
    { role: "system", content: [{ type: "text", text: env(cwd) }] },
    ...extra,
  ],
});

async function post(url: string, value: unknown, path = "/v1/messages?beta=true") {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(value),
  });
  return {
    status: response.status,
    retry: response.headers.get("x-should-retry"),
    text: await response.text(),
  };
}

const READ_BACK = [
  {
    role: "assistant",
    content: [
      {
        type: "tool_use",
        id: "toolu_vcr_0001",
        name: "Read",
        input: { file_path: "/rec/project/notes.txt" },
      },
    ],
  },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_vcr_0001", content: "notes" }] },
];

/** Records prompts "one" and "two" from a scripted model into a Recording. */
async function record(): Promise<{ recording: Recording; answers: string[]; interactions: Interaction[] }> {
  const model = await startModelServer({
    source: scripted((request) => {
      const prompt = (request.messages[0]!.content as Array<{ text: string }>)[0]!.text;
      return prompt === "read it" && request.messages.length === 2
        ? reply(toolUse("Read", { file_path: "/rec/project/notes.txt" }))
        : reply(text(`answer to ${prompt}`));
    }),
  });
  const answers = [
    (await post(model.url, body("one"))).text,
    (await post(model.url, body("two"))).text,
    (await post(model.url, body("read it"))).text,
    // The CLI sends the Read call back with its result: the recording is whole (see integrity.ts).
    (await post(model.url, body("read it", "/rec/project", READ_BACK))).text,
  ];
  await model.close();
  return {
    recording: recordingFromInteractions(model.interactions),
    answers,
    interactions: model.interactions,
  };
}

describe("replaying", () => {
  it("answers each request with its recorded bytes, matched by content, not order", async () => {
    const { recording, answers } = await record();
    const server = await startModelServer({ source: replaying(recording) });
    try {
      expect((await post(server.url, body("two"))).text).toBe(answers[1]);
      expect((await post(server.url, body("one"))).text).toBe(answers[0]);
      const source = server.source as ReturnType<typeof replaying>;
      expect(source.played).toEqual([1, 0]);
      expect(source.divergences).toEqual([]);
      expect(source.unplayed()).toEqual([2, 3]);
      expect(source.report()).toContain("Never replayed: interactions #2, #3.");
      expect(() => source.assertComplete()).toThrow("Replayed 2 of 4 recorded interactions");
      // A repeated request (a retry) gets the same answer again.
      expect((await post(server.url, body("one"))).text).toBe(answers[0]);
    } finally {
      await server.close();
    }
  });

  it("answers a request that matches nothing with a non-retried error naming the closest recording and the difference", async () => {
    const { recording } = await record();
    const server = await startModelServer({
      source: replaying(recording, { label: "cassettes/s/c.recording.json" }),
    });
    try {
      await post(server.url, body("one"));
      const answer = await post(server.url, body("tw0"));
      expect(answer.status).toBe(DIVERGENCE_STATUS);
      expect(answer.retry).toBe("false");
      const error = JSON.parse(answer.text);
      expect(error.type).toBe("error");
      expect(error.error.type).toBe("invalid_request_error");
      expect(error.error.message).toBe(
        [
          "@evals/vcr replay diverged at request 2 (interaction #1, POST /v1/messages): no recorded request in cassettes/s/c.recording.json matches it.",
          "Closest recorded request: interaction #1, which differs at:",
          'messages[0].content[0].text: recorded "two", got "tw0"',
          "If the change is intended, record the run again (VCR_MODE=record).",
        ].join("\n"),
      );
      const source = server.source as ReturnType<typeof replaying>;
      expect(source.divergences).toHaveLength(1);
      expect(source.divergences[0]).toMatchObject({ interaction: 1, request: 2, closest: { index: 1 } });
      expect(server.interactions[1]!.error).toContain("diverged at request 2");
    } finally {
      await server.close();
    }
  });

  it("puts this run's working directory in place of the recorded one in replayed responses", async () => {
    const { recording } = await record();
    const moved = await startModelServer({ source: replaying(recording) });
    const kept = await startModelServer({ source: replaying(recording, { rewritePaths: false }) });
    try {
      const answer = await post(moved.url, body("read it", "/ci/build/project"));
      expect(answer.text).toContain("/ci/build/project/notes.txt");
      expect(answer.text).not.toContain("/rec/project");
      expect((await post(kept.url, body("read it", "/ci/build/project"))).text).toContain(
        "/rec/project/notes.txt",
      );
    } finally {
      await moved.close();
      await kept.close();
    }
  });

  it("puts this run's memory folder in place of the recorded one, keyed by a git root above the cwd or not", async () => {
    // The CLI names its memory folder in the system prompt: `<config dir>/projects/<key>/memory/`.
    const withMemory = (cwd: string, configDir: string, key: string) => ({
      ...body("remember it", cwd),
      system: [
        {
          type: "text",
          text: `You have a persistent file-based memory at \`${configDir}/projects/${key}/memory/\`.`,
        },
      ],
    });
    const model = await startModelServer({
      source: scripted(() =>
        reply(
          toolUse("Write", { file_path: "/rec/.claude/projects/-rec-project/memory/fact.md", content: "x" }),
        ),
      ),
    });
    await post(model.url, withMemory("/rec/project", "/rec/.claude", "-rec-project"));
    await model.close();
    const server = await startModelServer({
      source: replaying(recordingFromInteractions(model.interactions)),
    });
    try {
      // Here a stray /ci/.git makes /ci the git root: the CLI keys its memory folder "-ci".
      const answer = await post(server.url, withMemory("/ci/build/project", "/ci/cfg", "-ci"));
      expect(answer.status).toBe(200);
      expect(answer.text).toContain("/ci/cfg/projects/-ci/memory/fact.md");
    } finally {
      await server.close();
    }
  });

  it("estimates count_tokens and answers other unrecorded endpoints without calling it a divergence", async () => {
    const { recording } = await record();
    const server = await startModelServer({ source: replaying(recording) });
    try {
      const count = await post(server.url, body("one"), "/v1/messages/count_tokens");
      expect(JSON.parse(count.text).input_tokens).toBeGreaterThan(0);
      expect((await post(server.url, {}, "/v1/files")).status).toBe(404);
      expect((server.source as ReturnType<typeof replaying>).divergences).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("matches a prompt holding a secret against its redacted recording", async () => {
    const model = await startModelServer({ source: scripted(() => reply(text("ok"))) });
    await post(model.url, body("deploy with ACME-1234 and sk-ant-api03-abc"));
    await model.close();
    const redact = { patterns: [/ACME-\d+/] };
    const recording = recordingFromInteractions(model.interactions, { redact });
    expect(JSON.stringify(recording)).not.toMatch(/ACME-1234|sk-ant-api03-abc/);
    const server = await startModelServer({ source: replaying(recording, { redact }) });
    try {
      expect((await post(server.url, body("deploy with ACME-1234 and sk-ant-api03-abc"))).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
