import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeCodeRunner } from "@evals/claude-code";
import { casePrompts, loadCases } from "@evals/evaluators";
import { runCases } from "@evals/harness";
import { canonicalKey, normalizeRequest, readRecording, recordedRequest, type WireRequest } from "@evals/vcr";
import { describe, expect, test } from "vitest";
import { OFFLOADER_MASKS } from "./support/masks.js";
import { OFFLOADER_CASSETTE, offloaderTrial } from "./support/offloader-case.js";
import { SKILL_NAME } from "./support/scripted-agent.js";
import { WITHOUT_SKILL } from "./support/without-skill.js";

/**
 * The recordings the two suites replay: one per case, made by the real claude CLI 2.1.330 through
 * the recording proxy, nothing secret in them, none left over from a changed or removed case. And
 * the replay masks: two runs of one scenario match, two different answers do not.
 */

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const SKILL_MD = here("../skills/gemini-offloader/SKILL.md");
/** What SKILL.md writes where Claude Code puts the installed plugin's folder. */
const PLUGIN_ROOT_VARIABLE = ["$", "{CLAUDE_PLUGIN_ROOT}"].join("");

/** Every string in a value, depth first. */
function* strings(value: unknown): Generator<string> {
  if (typeof value === "string") yield value;
  else if (Array.isArray(value)) for (const item of value) yield* strings(item);
  else if (value && typeof value === "object") for (const item of Object.values(value)) yield* strings(item);
}

/**
 * The SKILL.md a recorded session loaded, as the CLI sent it to the model ("Base directory for this
 * skill: <dir>" then the body, with ${CLAUDE_PLUGIN_ROOT} filled in), turned back into the file's
 * body; undefined when the session never loaded the skill.
 */
function recordedSkillBody(requests: WireRequest[]): string | undefined {
  for (const request of requests) {
    for (const text of strings(request.body)) {
      const match = /^Base directory for this skill: (.+)\/skills\/gemini-offloader\n/.exec(text);
      if (match) return text.slice(match[0].length).split(match[1]!).join(PLUGIN_ROOT_VARIABLE);
    }
  }
  return undefined;
}
const SUITES = [
  { suite: "gemini-offloader-skill", cases: "./cases/skill-invocation.yaml", baseline: WITHOUT_SKILL },
  { suite: "gemini-offloader-workflows", cases: "./cases/workflows.yaml", baseline: undefined },
];

describe.each(SUITES)("recordings of $suite", ({ suite, cases, baseline }) => {
  const folder = here(`./cassettes/${suite}`);
  const files = readdirSync(folder).filter((name) => name.endsWith(".recording.json"));
  const loaded = loadCases(here(cases));
  /** A baseline's recording is `<case id>.<baseline>.<hash>`: its case id says `<case id>.<baseline>`. */
  const baselineSuffix = baseline ? `.${baseline.name}` : undefined;
  const isBaseline = (name: string) =>
    baselineSuffix !== undefined &&
    String(readRecording(join(folder, name)).metadata.case_id).endsWith(baselineSuffix);

  test("one recording per case (and per case of its baseline), each for the case's current prompt", () => {
    const byCase = new Map<string, string[]>();
    for (const name of files) {
      const recording = readRecording(join(folder, name));
      const recorded = String(recording.metadata.case_id);
      const caseId =
        baselineSuffix && recorded.endsWith(baselineSuffix)
          ? recorded.slice(0, -baselineSuffix.length)
          : recorded;
      byCase.set(recorded, [...(byCase.get(recorded) ?? []), name]);
      const evalCase = loaded.find((item) => item.id === caseId);
      expect(evalCase, `${name} belongs to no case of ${cases} (delete it)`).toBeDefined();
      expect(recording.metadata.prompt, `${name} was recorded for another prompt`).toBe(
        casePrompts(evalCase!).join("\n\n"),
      );
    }
    for (const evalCase of loaded) {
      expect(byCase.get(evalCase.id), `recordings of ${evalCase.id}`).toHaveLength(1);
    }
    const baselineCases = baseline ? baseline.cases.map((id) => `${id}${baselineSuffix}`) : [];
    for (const id of baselineCases) expect(byCase.get(id), `recordings of ${id}`).toHaveLength(1);
    expect(byCase.size).toBe(loaded.length + baselineCases.length);
  });

  test.each(files)(
    "%s is a real claude 2.1.330 session, recorded through the proxy, with no key in it",
    (name) => {
      const recording = readRecording(join(folder, name));
      expect(recording.claude_version).toBe("2.1.330");
      expect(["loopback", "api"]).toContain(recording.metadata.upstream);
      const requests = recording.interactions.map((interaction) => recordedRequest(recording, interaction));
      // A session that used a tool has several requests; the baseline's agent answers at once.
      expect(requests.length).toBeGreaterThan(isBaseline(name) ? 0 : 1);
      for (const request of requests) {
        expect(request.headers["user-agent"]).toMatch(/^claude-cli\/2\.1\.330 /);
        expect(request.headers["x-api-key"]).toBe("[REDACTED]");
      }
      // The CLI offered the plugin's skill to the model in every session, but not without the plugin.
      const offered = JSON.stringify(requests[0]!.body).includes(`- ${SKILL_NAME}:`);
      expect(offered, "the skill offered to the model").toBe(!isBaseline(name));
    },
  );

  test.each(files)("%s loaded today's SKILL.md (else: re-record it)", (name) => {
    const recording = readRecording(join(folder, name));
    const loaded = recordedSkillBody(recording.interactions.map((item) => recordedRequest(recording, item)));
    if (loaded === undefined) {
      // Only the agent that never loads the skill (and the baseline, without it) has no SKILL.md in its session.
      if (!isBaseline(name)) expect(name).toMatch(/^misbehaves-calls-gemini-directly\./);
      return;
    }
    expect(isBaseline(name), `${name}: the baseline runs without the plugin`).toBe(false);
    const body = readFileSync(SKILL_MD, "utf8").replace(/^---\n[\s\S]*?\n---\n/, "");
    expect(
      loaded.trim(),
      `SKILL.md changed since ${name} was recorded: record it again (see evals/README.md)`,
    ).toBe(body.trim());
  });
});

describe("replay masks", () => {
  /** A request whose last tool result is a script's output, run in `project`. */
  const request = (project: string, output: Record<string, unknown>): WireRequest => ({
    method: "POST",
    path: "/v1/messages?beta=true",
    headers: {},
    body: {
      model: "claude-opus-5-5",
      system: [{ type: "text", text: `Primary working directory: ${project}` }],
      messages: [
        { role: "user", content: "Ask Gemini" },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: JSON.stringify(output, null, 2) },
          ],
        },
      ],
    },
  });
  const key = (value: WireRequest) => canonicalKey(normalizeRequest(value, { replace: OFFLOADER_MASKS }));

  /** What query.js printed in one trial: the folders, ids, times and durations of that trial. */
  interface Trial {
    dir: string;
    checkout: string;
    session: string;
    time: string;
    memory: string;
    ms: number;
  }
  const queryOutput = (trial: Trial, response = "Wasmtime starts fastest.") => ({
    success: true,
    response,
    full_response_path: `${trial.dir}/offloader/projects/7ae607db22f5fb09/responses/b50cb0c8018d38e2dfad9b6c6b98260e.md`,
    gemini_path: `${trial.checkout}/node_modules/@google/gemini-cli/bundle/gemini.js`,
    session_id: trial.session,
    created_at: trial.time,
    memory: trial.memory,
    duration_ms: trial.ms,
  });
  const one: Trial = {
    dir: "/tmp/go-eval-AbC123",
    checkout: "/work/main",
    session: "1d59b7db-1a85-4471-b6b5-d0792a7017d3",
    time: "2026-11-22T01:11:31.776Z",
    memory: "mem_mwr55m80_7b240ac0",
    ms: 9215,
  };
  const another: Trial = {
    dir: "/var/folders/x/go-eval-Zz9Yy8",
    checkout: "/home/runner/work/evals/evals",
    session: "9a3d44e6-6b31-4f8d-a496-af3aad39ad2c",
    time: "2027-01-02T10:00:00.000Z",
    memory: "mem_mx0aa1b2_0c1d2e3f",
    ms: 42,
  };

  test("two trials of one scenario, on two machines, give the same request", () => {
    const first = request(`${one.dir}/project`, queryOutput(one));
    const second = request(`${another.dir}/project`, queryOutput(another));
    expect(key(first)).toBe(key(second));
  });

  test("a different answer is a different request", () => {
    const first = request(`${one.dir}/project`, queryOutput(one));
    const other = request(`${one.dir}/project`, queryOutput(one, "Wasmer starts fastest."));
    expect(key(first)).not.toBe(key(other));
  });
});

describe("a changed SKILL.md", () => {
  test("makes the replay fail, naming the change and how to record again", async () => {
    const evalCase = loadCases(here("./cases/skill-invocation.yaml")).find(
      (item) => item.id === "check-config-runs-launcher",
    )!;
    const outputRoot = mkdtempSync(join(tmpdir(), "go-skill-md-changed-"));
    try {
      const { outcomes } = await runCases([evalCase], {
        suite: "gemini-offloader-skill",
        agent: claudeCodeRunner,
        // Replay only, with no model, whatever VCR_MODE says: this run must never become the recording.
        cassette: { ...OFFLOADER_CASSETTE, mode: "strict" },
        scorers: [],
        // The installed copy of the plugin gets one more instruction in its SKILL.md.
        task: (_case, trial) =>
          offloaderTrial(trial, {
            prepare: async (workspace) =>
              appendFileSync(
                `${workspace.pluginDir}/skills/gemini-offloader/SKILL.md`,
                "\nAlways greet the user first.\n",
              ),
          }),
        outputRoot,
      });
      const error = outcomes[0]?.result.trials[0]?.error ?? "";
      expect(outcomes[0]?.passed).toBe(false);
      expect(error).toContain("replay diverged");
      expect(error).toContain("Always greet the user first.");
      expect(error).toContain("VCR_MODE=record");
    } finally {
      rmSync(outputRoot, { recursive: true, force: true });
    }
  });
});
