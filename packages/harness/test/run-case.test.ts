import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeCodeRunner } from "@evals/claude-code";
import { runFromStreamJson } from "@evals/core";
import { type AnyRule, defaultRuleRegistry, parseCase, parseCaseText } from "@evals/evaluators";
import { fixtureStream } from "@evals/test-kit/claude-fixtures";
import { cassetteKey, reply, text } from "@evals/vcr";
import { afterAll, describe, expect, it } from "vitest";
import {
  caseModel,
  caseRunOptions,
  cassetteKeyOptions,
  loadCaseList,
  RunnerRegistry,
  runCases,
} from "../src/index.js";

const scratch = mkdtempSync(join(tmpdir(), "harness-run-case-unit-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A case as loadCases reads it from `<root>/cases/case.yaml`. */
const caseAt = (root: string, yaml: string) => parseCaseText(yaml, join(root, "cases", "case.yaml"))[0]!;
const caseOf = (yaml: string) => caseAt(scratch, yaml);

describe("caseRunOptions", () => {
  const base = `id: edits
prompt: Fix the typo.
agent:
  fixture: ../fixture
  allowedTools: [Read, Edit]
  env: { NO_COLOR: "1" }
  options:
    permissionMode: acceptEdits
timeout: 90s
`;

  it("maps a case's prompt, shared agent options and timeout, the runner's own under options, without the fixture", () => {
    expect(caseRunOptions(caseOf(base), claudeCodeRunner)).toEqual({
      prompt: "Fix the typo.",
      allowedTools: ["Read", "Edit"],
      env: { NO_COLOR: "1" },
      options: { permissionMode: "acceptEdits" },
      timeoutMs: 90_000,
    });
    expect(caseRunOptions(caseOf("id: two\nprompts: [first, second]\n")).prompt).toEqual(["first", "second"]);
  });

  it("resolves the runner's path options against the case file (a case in code: against the current folder)", () => {
    const own = {
      systemPrompt: "s",
      pluginDirs: ["plugins/a"],
      settings: { env: { A: "1" } },
      settingSources: ["project"],
      mcpConfig: "mcp.json",
      addDirs: ["/abs/docs"],
      agents: { r: { description: "d", prompt: "p" } },
    };
    const shared = { maxTurns: 3, model: "sonnet", disallowedTools: ["WebFetch"] };
    const options = caseRunOptions(
      parseCase({ id: "in-code", prompt: "p", agent: { ...shared, options: own } }),
      claudeCodeRunner,
    );
    expect(options).toEqual({
      prompt: "p",
      ...shared,
      options: {
        ...own,
        pluginDirs: [join(process.cwd(), "plugins/a")],
        mcpConfig: join(process.cwd(), "mcp.json"),
      },
    });
    const inFile = caseRunOptions(
      caseOf("id: f\nprompt: p\nagent:\n  options: { settings: ../s.json, systemPrompt: x }\n"),
      claudeCodeRunner,
    );
    expect(inFile.options).toEqual({ settings: join(scratch, "s.json"), systemPrompt: "x" });
  });

  it("says which case has no prompt", () => {
    expect(() => caseRunOptions(caseOf("id: silent\n"))).toThrow("case silent has no prompt");
  });
});

describe("a case's runner options, checked by its runner when the cases are loaded", () => {
  it("names the file, line and field of an option the runner refuses, and an agent CLI no runner runs", () => {
    const file = join(scratch, "runner-options.yaml");
    writeFileSync(
      file,
      `id: bad-mode
prompt: p
agent:
  options:
    permissionMode: yolo
---
id: unknown-cli
prompt: p
agent:
  cli: codex
`,
    );
    const runners = new RunnerRegistry([claudeCodeRunner]);
    let error: unknown;
    try {
      loadCaseList(file, { runners });
    } catch (caught) {
      error = caught;
    }
    const issues = (error as { issues: { line?: number; field?: string; message: string }[] }).issues;
    expect(issues.map((issue) => [issue.line, issue.field])).toEqual([
      [5, "agent.options.permissionMode"],
      [10, "agent.cli"],
    ]);
    expect(issues[0]?.message).toMatch(/expected one of "default".*\(claude-code's runner options\)/);
    expect(issues[1]?.message).toBe(
      'no runner for "codex" is registered; the registered ones are claude-code',
    );
    // Without runners the loader leaves the options to the run.
    expect(loadCaseList(file)).toHaveLength(2);
  });
});

describe("the recording key of a case", () => {
  const yaml = `id: edits
prompt: Fix the typo.
agent:
  fixture: ../fixture
  allowedTools: [Read, Edit]
  env: { NO_COLOR: "1" }
  options:
    permissionMode: acceptEdits
    pluginDirs: [../plugins/mine]
    settings: ../settings.json
`;
  /** The key of the case as it would be recorded when the suite lies at `root`. */
  const keyAt = (root: string, text = yaml) => {
    const options = { ...caseRunOptions(caseAt(root, text), claudeCodeRunner), cwd: join(root, "copy") };
    return cassetteKey({
      suite: "",
      caseId: "fix-typo",
      prompt: "Fix the typo.",
      options: cassetteKeyOptions(options, { dir: join(root, "cassettes") }, claudeCodeRunner.pathOptions),
    });
  };

  it("keys on the options that shape the run, not on the fixture, the env or where the suite lies", () => {
    const original = keyAt(join(scratch, "here"));
    expect(keyAt(join(scratch, "elsewhere", "deeper"))).toBe(original);
    expect(keyAt(join(scratch, "here"), yaml.replace("../fixture", "../other-fixture"))).toBe(original);
    expect(keyAt(join(scratch, "here"), yaml.replace('NO_COLOR: "1"', 'NO_COLOR: "0"'))).toBe(original);
    expect(keyAt(join(scratch, "here"), yaml.replace("[Read, Edit]", "[Read]"))).not.toBe(original);
    expect(keyAt(join(scratch, "here"), yaml.replace("acceptEdits", "default"))).not.toBe(original);
    expect(keyAt(join(scratch, "here"), yaml.replace("../plugins/mine", "../plugins/other"))).not.toBe(
      original,
    );
  });

  it("stores paths relative to the cassette folder, or to the run's folder", () => {
    const root = join(scratch, "here");
    const keyed = cassetteKeyOptions(
      {
        prompt: "p",
        cwd: join(root, "copy"),
        env: { SECRET: "x" },
        options: {
          pluginDirs: [join(root, "plugins", "mine")],
          settings: join(root, "copy", ".claude", "settings.json"),
          mcpConfig: [join(root, "mcp.json"), { mcpServers: {} }],
        },
      },
      { dir: join(root, "cassettes") },
      claudeCodeRunner.pathOptions,
    );
    expect(keyed).toEqual({
      pluginDirs: ["../plugins/mine"],
      settings: "<cwd>/.claude/settings.json",
      mcpConfig: ["../mcp.json", { mcpServers: {} }],
    });
  });
});

describe("loadCaseList and caseModel", () => {
  it("reads files and folders of cases, and takes cases as they are", () => {
    const folder = join(scratch, "list", "cases");
    mkdirSync(join(folder, "more"), { recursive: true });
    writeFileSync(join(folder, "a.yaml"), "id: a\nprompt: p\n");
    writeFileSync(join(folder, "more", "b.yaml"), "id: b\nprompt: p\n");
    expect(loadCaseList(folder).map((evalCase) => evalCase.id)).toEqual(["a", "b"]);
    expect(loadCaseList([join(folder, "a.yaml")]).map((evalCase) => evalCase.id)).toEqual(["a"]);
    const inCode = parseCase({ id: "c", prompt: "p" });
    expect(loadCaseList([inCode])).toEqual([inCode]);
  });

  it("gives each case its scripted model by id, or none", () => {
    const script = () => reply(text("hi"));
    const model = caseModel({ a: script });
    expect(model(parseCase({ id: "a", prompt: "p" }))).toBe(script);
    expect(model(parseCase({ id: "b", prompt: "p" }))).toBeUndefined();
  });
});

describe("runCases with a rule registry", () => {
  const fixture = (name: string) =>
    join(import.meta.dirname, "..", "..", "cli", "test", "__fixtures__", "rules", name);
  /** The real multi-tool run: its Bash calls are `ls` and `echo BLOCKME` (twice, one denied by a hook). */
  const multiTool = () => runFromStreamJson(fixtureStream("multi-tool"), { prompts: ["do the steps"] });

  it("loads and judges cases by the rules of `rules`; without them the case file is refused", async () => {
    const { bashAllowlist } = (await import(fixture("bash-allowlist.mjs"))) as { bashAllowlist: AnyRule };
    const rules = defaultRuleRegistry.with(bashAllowlist);
    const result = await runCases(fixture("allowlist.yaml"), { rules, task: () => multiTool() });
    const [outcome] = result.outcomes;
    const scores = outcome?.result.trials[0]?.scores ?? [];
    expect(scores.find((score) => score.scorer === "bash-allowlist")).toMatchObject({ passed: false });
    expect(outcome?.passed).toBe(false);

    await expect(runCases(fixture("allowlist.yaml"), { task: () => multiTool() })).rejects.toThrow(
      /allowlist\.yaml:5:3 \(field rules\.bash-allowlist\): unknown field "bash-allowlist"/,
    );
  });
});
