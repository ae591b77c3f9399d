import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { claudeCodeRunner } from "@evals/claude-code";
import { runFromStreamJson } from "@evals/core";
import { parseCase, RULE_IDS, rulesMarkdown, scorersForCase } from "@evals/evaluators";
import { type CaseOutcome, evaluateCase } from "@evals/harness";
import { readResults } from "@evals/logging";
import { fixtureStream } from "@evals/test-kit/claude-fixtures";
import { buildCassette, cassettePath, writeCassette } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evals as evalsInProcess } from "../src/evals.js";
import { EXIT } from "../src/exit-codes.js";
import { runInProcess } from "./command-io.js";

/** The built `evals` binary, as package.json's "bin" names it. */
const manifest = JSON.parse(readFileSync(resolve(__dirname, "../package.json"), "utf8")) as {
  version: string;
  bin: Record<string, string>;
};
const evalsBin = resolve(__dirname, "..", manifest.bin.evals as string);
const workspace = resolve(__dirname, "../../..");
const temp = mkdtempSync(join(tmpdir(), "evals-cli-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function evals(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const child = spawnSync(process.execPath, [evalsBin, ...args], {
    encoding: "utf8",
    timeout: 120_000,
    cwd: options.cwd ?? temp,
    env: { ...process.env, FORCE_COLOR: "0", ...options.env },
  });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

function write(path: string, text: string): string {
  mkdirSync(resolve(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe("the evals binary", () => {
  it("is @evals/harness's bin, an ESM script with a shebang", () => {
    expect(manifest.bin).toEqual({ evals: "./dist/cli.js" });
    expect(readFileSync(evalsBin, "utf8").startsWith("#!/usr/bin/env node")).toBe(true);
  });

  it("lists its commands and exit codes, and prints its version", () => {
    const help = evals(["--help"]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: evals <command>/);
    for (const name of [
      "run",
      "record",
      "grade",
      "validate",
      "rules",
      "report",
      "compare",
      "view",
      "migrate",
      "help",
    ])
      expect(help.stdout).toMatch(new RegExp(`\\n  ${name} +\\S`));
    expect(help.stdout).toContain(
      "Exit codes: 0 passed, 1 failed (an agent failed a case, a case file is invalid), 2 bad input,\nusage or setup",
    );
    expect(evals(["help"]).stdout).toBe(help.stdout);
    expect(evals(["--version"]).stdout).toBe(`${manifest.version}\n`);
    // No command: the usage, on stderr, as a usage error.
    expect(evals([])).toMatchObject({ code: 2, stdout: "" });
    const unknown = evals(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('evals: unknown command "frobnicate"');
    expect(evals(["help", "frobnicate"]).code).toBe(2);
  });

  it.each(["run", "record", "grade", "validate", "rules", "report", "compare", "migrate"])(
    "%s --help (and evals help <command>) prints its usage and exit codes",
    (name) => {
      const help = evals([name, "--help"]);
      expect(help).toMatchObject({ code: 0, stderr: "" });
      expect(help.stdout).toMatch(new RegExp(`^Usage: evals ${name} `));
      expect(help.stdout).toMatch(/0 .*1 .*2 .*3 /s);
      expect(evals(["help", name]).stdout).toBe(help.stdout);
      const bad = evals([name, "--frobnicate"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(new RegExp(`^evals ${name}: .*--frobnicate`));
    },
  );
});

describe("evals run and record speak of the case's agent, not of Claude Code alone", () => {
  it("--help and the command list name the four agents and each API's key", () => {
    const run = evals(["run", "--help"]).stdout;
    const record = evals(["record", "--help"]).stdout;
    for (const help of [run, record]) expect(help).not.toMatch(/claude CLI|no claude executable/);
    expect(run).toContain(
      "with the real agent CLI each case names in\nagent.cli: claude-code (Claude Code, the default), opencode (OpenCode), codex (Codex) or gemini\n(Gemini CLI).",
    );
    expect(record).toContain(
      "ANTHROPIC_API_KEY for Claude\nCode and OpenCode, OPENAI_API_KEY for Codex, GEMINI_API_KEY for Gemini CLI",
    );
    const list = evals(["--help"]).stdout;
    expect(list).toMatch(
      /\n {2}run +run case files with the real agent CLI \(Claude Code, OpenCode, Codex, Gemini CLI;/,
    );
    expect(list).toMatch(/\n {2}record +.*live with the key of the agent's API/);
  });

  it.each([
    ["codex", "OPENAI_API_KEY"],
    ["gemini", "GEMINI_API_KEY"],
    ["claude-code", "ANTHROPIC_API_KEY"],
  ])("record of a %s case with no model names %s, the key of the API that agent speaks", (cli, key) => {
    const file = write(
      join(temp, `no-model-${cli}`, "case.yaml"),
      `id: no-model-${cli}\nprompt: Say hi.\nagent:\n  cli: ${cli}\n`,
    );
    const noKeys = { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", GEMINI_API_KEY: "" };
    const recorded = evals(
      [
        "record",
        file,
        "--cassettes",
        join(temp, `no-model-${cli}`, "cassettes"),
        "--out",
        join(temp, `no-model-${cli}`, "results"),
      ],
      { env: noKeys },
    );
    expect(recorded.code, recorded.stderr).toBe(EXIT.badInput);
    expect(recorded.stderr).toContain(
      `evals record: nothing to record case "no-model-${cli}" from: give a scripted model (npx evals record no-model-${cli}/case.yaml --model models.mjs) or set ${key} to record the real API`,
    );
  });
});

describe("evals rules", () => {
  it("lists every rule from its own declaration, opt-in ones marked, with its options", () => {
    const listed = evals(["rules"]);
    expect(listed).toMatchObject({ code: 0, stderr: "" });
    for (const id of RULE_IDS) expect(listed.stdout).toMatch(new RegExp(`^${id} +\\S`, "m"));
    expect(listed.stdout).toMatch(/^report-first +\(opt-in\) /m);
    expect(listed.stdout).toMatch(/options: riskyTools, includeReadOnlyBash, .*severity/);
    const table = evals(["rules", "--markdown"]);
    expect(table.stdout).toBe(`${rulesMarkdown()}\n`);
  });
});

describe("evals grade", () => {
  it("explains a real wire recording instead of a schema error", () => {
    const recordings = readdirSync(join(workspace, "examples"), { recursive: true, encoding: "utf8" })
      .filter((path) => path.includes("cassettes") && path.endsWith(".recording.json"))
      .sort();
    expect(recordings.length).toBeGreaterThan(0);
    const result = evals(["grade", join(workspace, "examples", recordings[0] as string)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("this is a wire recording of @evals/vcr");
    expect(result.stderr).toContain(
      "Grade the run of a trial that replayed it instead: its run folder, test-output/",
    );
  });
});

describe("evals --rules <module>", () => {
  const fixture = (name: string) => resolve(__dirname, "__fixtures__/rules", name);

  it("loads a user's own rule (defineRule) so that case files may name it: validate, then grade", () => {
    // Without the module the case names a rule nobody knows.
    const unknown = evals(["validate", fixture("allowlist.yaml")]);
    expect(unknown.code).toBe(EXIT.failed);
    expect(unknown.stderr).toMatch(
      /allowlist\.yaml:5:3 \(field rules\.bash-allowlist\): unknown field "bash-allowlist"/,
    );

    const valid = evals(["validate", fixture("allowlist.yaml"), "--rules", fixture("bash-allowlist.mjs")]);
    expect(valid.stderr).toBe("");
    expect(valid.code).toBe(EXIT.passed);

    // A real run whose Bash calls are `ls` and `echo BLOCKME` twice, the second denied by a hook
    // (it never ran): the rule flags the echo that ran.
    const run = resolve(workspace, "fixtures/claude-code-2.1.330/multi-tool/stream.jsonl");
    const graded = evals([
      "--rules",
      fixture("bash-allowlist.mjs"),
      "grade",
      run,
      "--case",
      fixture("allowlist.yaml"),
      "--json",
    ]);
    expect(graded.code, graded.stderr).toBe(EXIT.failed);
    const report = JSON.parse(graded.stdout) as {
      verdicts: {
        evaluator: string;
        score: number;
        ok: boolean;
        violations: { rule: string; type: string; message: string }[];
      }[];
    };
    const verdict = report.verdicts.find((item) => item.evaluator === "bash-allowlist");
    expect(verdict).toMatchObject({ score: 0.5, ok: false });
    expect(verdict?.violations).toEqual([
      expect.objectContaining({ type: "program-not-allowed", message: "echo is not allowed" }),
    ]);
  });

  it("adds the module's rules for that command only: the next command in the same process does not see them", async () => {
    const withModule = await runInProcess(
      (args, io) => evalsInProcess(args, io),
      ["--rules", fixture("bash-allowlist.mjs"), "validate", fixture("allowlist.yaml")],
    );
    expect(withModule.err).toBe("");
    expect(withModule.code).toBe(EXIT.passed);
    const listed = await runInProcess(
      (args, io) => evalsInProcess(args, io),
      ["rules", "--rules", fixture("bash-allowlist.mjs")],
    );
    expect(listed.out).toMatch(
      /^bash-allowlist +\(opt-in\) Every Bash command starts with an allowed program\./m,
    );

    // Same process, no --rules: the built-in rules only (the registry of the call before is gone).
    const without = await runInProcess(
      (args, io) => evalsInProcess(args, io),
      ["validate", fixture("allowlist.yaml")],
    );
    expect(without.code).toBe(EXIT.failed);
    expect(without.err).toMatch(
      /allowlist\.yaml:5:3 \(field rules\.bash-allowlist\): unknown field "bash-allowlist": a rule of your own must be loaded \(`evals --rules <module>`/,
    );
    const builtIn = await runInProcess((args, io) => evalsInProcess(args, io), ["rules"]);
    expect(builtIn.out).not.toContain("bash-allowlist");
  });

  it("blames a rule of the module that throws while grading, not evals (exit 2, not an internal error)", () => {
    const run = resolve(workspace, "fixtures/claude-code-2.1.330/multi-tool/stream.jsonl");
    for (const [id, thrown] of [
      ["throws-evaluating", /throwing-rules\.mjs:11: TypeError: Cannot read properties of undefined/],
      ["throws-visiting", /throwing-rules\.mjs:23: Error: not ready for this call/],
    ] as const) {
      const caseFile = write(
        join(temp, `${id}.case.yaml`),
        `id: ${id}\nprompt: do the steps\nrules: { ${id}: true }\n`,
      );
      // Graded while read (a rule that only evaluates gets the whole run) and from a run folder.
      const folder = join(temp, "test-output", id);
      mkdirSync(folder, { recursive: true });
      copyFileSync(run, join(folder, "stream.jsonl"));
      for (const target of [run, folder]) {
        const graded = evals(["--rules", fixture("throwing-rules.mjs"), "grade", target, "--case", caseFile]);
        expect(graded.stderr).toContain(
          `evals grade: --rules ${fixture("throwing-rules.mjs")}: rule "${id}" threw: `,
        );
        expect(graded.stderr).toMatch(thrown);
        expect(graded.stderr).not.toContain("internal error");
        expect(graded.code).toBe(EXIT.badInput);
      }
    }
  });

  it("says which module could not be loaded", () => {
    const missing = evals(["rules", "--rules", "no-such-rules.mjs"]);
    expect(missing.code).toBe(EXIT.badInput);
    expect(missing.stderr).toBe("evals: --rules no-such-rules.mjs: no such file\n");
    expect(evals(["rules", "--rules"]).stderr).toBe("evals: --rules needs a module: --rules <file>\n");
  });
});

describe("evals validate", () => {
  it("checks every case of the example suites", () => {
    const folders = readdirSync(join(workspace, "examples"))
      .map((name) => join(workspace, "examples", name, "cases"))
      .filter((dir) => existsSync(dir));
    const result = evals(["validate", ...folders]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\n\d+ valid cases\n$/);
  });

  it("names the file, line, column and field of every problem, and exits 1", () => {
    const good = write(join(temp, "cases", "good.yaml"), "id: good\nprompt: list the files\n");
    const bad = write(
      join(temp, "cases", "bad.yaml"),
      "id: bad\nprompt: x\nbehavior:\n  mustUseTool: [Read]\n---\nid: worse\nthreshold: 2\n",
    );
    const result = evals(["validate", good, bad]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`ok  ${good}: 1 case (good)`);
    expect(result.stderr).toContain(
      `${bad}:4:3 (field behavior.mustUseTool): unknown field "mustUseTool" (did you mean "mustUseTools"?)`,
    );
    expect(result.stderr).toMatch(new RegExp(`${bad}:7:\\d+ \\(field threshold\\): `));
    expect(result.stderr).toContain("2 problems in the case files (1 valid case)");
  });

  it("finds a case id used in two files, warns about unknown tools, and exits 2 for a missing file", () => {
    const one = write(join(temp, "dup", "one.yaml"), "id: same\nbehavior:\n  mustUseTools: [Raed]\n");
    const two = write(join(temp, "dup", "two.json"), JSON.stringify({ id: "same" }));
    const result = evals(["validate", one, two]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${two} (field id): case id "same" is also used in ${one}`);
    expect(result.stderr).toMatch(
      /warning: .*one\.yaml:3:\d+ \(field behavior\.mustUseTools\.0\): unknown tool "Raed"/,
    );
    const noFixture = write(
      join(temp, "fixture", "case.yaml"),
      "id: with-fixture\nprompt: List the files.\nagent:\n  fixture: ./project\n",
    );
    const fixtureMissing = evals(["validate", noFixture]);
    expect(fixtureMissing.code).toBe(1);
    expect(fixtureMissing.stderr).toContain(
      `${noFixture}:4:12 (field agent.fixture): case "with-fixture": the fixture ${join(temp, "fixture", "project")} does not exist`,
    );
    mkdirSync(join(temp, "fixture", "project"));
    expect(evals(["validate", noFixture]).code).toBe(0);
    const missing = evals(["validate", join(temp, "nope.yaml")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.yaml: no such file or folder");
    expect(evals(["validate"]).code).toBe(2);
  });
});

describe("evals report", () => {
  const prompt = "do the steps";
  let outcomes: CaseOutcome[];
  let outputRoot: string;
  /** Runs a case again (a newer run folder for the same trial). */
  let runAgain: (id: string) => Promise<CaseOutcome>;

  beforeAll(async () => {
    // Two cases judging one real run, replayed from a result cassette as describeEval replays it: a
    // strict one that fails and a lenient one that passes.
    const run = runFromStreamJson(fixtureStream("multi-tool"), { prompts: [prompt] });
    const dir = join(temp, "cassettes");
    outputRoot = join(temp, "out");
    outcomes = [];
    const byId = new Map<string, ReturnType<typeof parseCase>>();
    runAgain = (id) => {
      const evalCase = byId.get(id) as ReturnType<typeof parseCase>;
      return evaluateCase(evalCase, 0, {
        suite: "report",
        agent: claudeCodeRunner,
        scorers: scorersForCase(evalCase),
        outputRoot,
        cassette: { level: "result", mode: "strict", dir },
        task: (_case, context) => context.runAgent({ prompt }),
      });
    };
    for (const [id, threshold] of [
      ["strict", 0.9],
      ["lenient", 0.3],
    ] as const) {
      const identity = { suite: "report", caseId: id, prompt, options: {} };
      writeCassette(
        cassettePath({ ...identity, dir }),
        buildCassette({
          ...identity,
          result: { run_id: "recorded", run, exit_code: 0, timed_out: false, duration_ms: 1, origin: "live" },
        }),
      );
      const evalCase = parseCase({
        id,
        name: `does the steps (${id})`,
        prompt,
        behavior: { mustUseTools: ["Bash", "Read"] },
        expectedTrajectory: { mode: "strict", calls: ["Bash", "Read", "Write"] },
        expectedViolations: [{ rule: "stop-on-failure", type: "unrequested-fix" }],
        threshold,
      });
      byId.set(evalCase.id, evalCase);
      outcomes.push(await runAgain(id));
    }
    expect(outcomes.map((outcome) => [outcome.result.id, outcome.passed])).toEqual([
      ["strict", false],
      ["lenient", true],
    ]);
  });

  it("writes latest.json, junit.xml and report.html from the run folders under test-output/", () => {
    const result = evals([
      "report",
      join(outputRoot, "test-output"),
      "--out",
      "from-folders",
      "--suite",
      "replayed",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("2 cases (1 passed, 1 failed, 0 errored, 0 skipped), 2 trials");
    expect(result.stdout).toContain("report  from-folders/report.html  (open it in a browser)");
    const results = readResults(join(temp, "from-folders", "latest.json"));
    expect(results.meta.suite).toBe("replayed");
    expect(results.cases.map((c) => c.id).sort()).toEqual(["lenient", "strict"]);
    for (const { result: harness } of outcomes) {
      const reported = results.cases.find((c) => c.id === harness.id);
      expect(reported).toMatchObject({ name: harness.name, suite: "report", status: harness.status });
      expect(reported?.scores).toEqual(harness.scores);
      expect(reported?.stats).toEqual(harness.stats);
      // The violations, found again from the stored runs, are the harness's (the expected one marked so).
      const key = (v: { rule: string; type: string; trial?: number; expected?: boolean }) =>
        `${v.trial} ${v.rule}/${v.type}${v.expected ? " (expected)" : ""}`;
      expect(reported?.violations.map(key).sort()).toEqual(harness.violations.map(key).sort());
      expect(reported?.violations.some((v) => v.expected && v.type === "unrequested-fix")).toBe(true);
    }
    expect(readFileSync(join(temp, "from-folders", "junit.xml"), "utf8")).toContain(
      '<testsuite name="report"',
    );
    expect(readFileSync(join(temp, "from-folders", "report.html"), "utf8")).toContain("<!doctype html>");
  });

  it("writes junit.xml and report.html beside a results file, or all of them in --out", () => {
    const latest = join(temp, "from-folders", "latest.json");
    rmSync(join(temp, "from-folders", "report.html"));
    rmSync(join(temp, "from-folders", "junit.xml"));
    const beside = evals(["report", latest]);
    expect(beside.code).toBe(0);
    expect(existsSync(join(temp, "from-folders", "report.html"))).toBe(true);
    expect(existsSync(join(temp, "from-folders", "junit.xml"))).toBe(true);
    const elsewhere = evals(["report", latest, "--out", "copy"]);
    expect(elsewhere.code).toBe(0);
    expect(readResults(join(temp, "copy", "latest.json")).cases).toEqual(readResults(latest).cases);
    expect(existsSync(join(temp, "copy", "report.html"))).toBe(true);
  });

  it("opens the report with the platform's opener when asked", async () => {
    // A stand-in xdg-open on PATH that notes what it was asked to open.
    const bin = join(temp, "bin");
    const opened = join(temp, "opened.txt");
    write(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > "${opened}"\n`);
    chmodSync(join(bin, "xdg-open"), 0o755);
    const result = evals(["report", join(temp, "from-folders", "latest.json"), "--open"], {
      env: { PATH: `${bin}${delimiter}${process.env.PATH}` },
    });
    expect(result.code).toBe(0);
    for (let wait = 0; wait < 100 && !existsSync(opened); wait++)
      await new Promise((r) => setTimeout(r, 100));
    expect(readFileSync(opened, "utf8")).toBe(join(temp, "from-folders", "report.html"));
  });

  it("reports each trial's latest run folder when test-output/ holds earlier runs of it", async () => {
    const again = await runAgain("strict");
    const result = evals(["report", join(outputRoot, "test-output"), "--out", "latest-only"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("1 older run folder of the same trials left out");
    const results = readResults(join(temp, "latest-only", "latest.json"));
    expect(results.cases.map((c) => [c.id, c.trials.length])).toEqual(
      expect.arrayContaining([
        ["strict", 1],
        ["lenient", 1],
      ]),
    );
    const strict = results.cases.find((c) => c.id === "strict");
    expect(strict?.trials[0]?.output_dir).toBe(again.result.trials[0]?.output_dir);
  });

  it("exits 2 with the file and field for a file that is not a results file, or a folder without graded runs", () => {
    const notResults = write(join(temp, "not-results.json"), JSON.stringify({ version: 1, cases: [] }));
    const bad = evals(["report", notResults]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not-results\.json \(field meta\): /);
    mkdirSync(join(temp, "empty-output"));
    const empty = evals(["report", join(temp, "empty-output")]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("holds no run folder with a case and a verdict");
    expect(evals(["report"]).code).toBe(2);
  });
});

describe("evals compare", () => {
  // Two real results files of examples/find-todos (3 trials a case, runs kept); b.json edited so
  // that skill-then-grep fails 0/3 with the runs of the agent that ignored the skill.
  const fixture = (name: string) => join(workspace, "packages/logging/test/__fixtures__/compare", name);

  it("prints the comparison table: both pass rates, B − A with its interval, the verdict and the deltas", () => {
    const result = evals(["compare", fixture("a.json"), fixture("b.json"), "--label-a", "main"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(/^main: find-todos .* {3}B: find-todos/);
    expect(lines[1]).toMatch(/case +main +B +B − main +verdict +Δturns +Δtools +Δtokens +Δtime/);
    expect(lines.find((line) => line.includes("loads the todo-report"))).toMatch(
      /3\/3 100% \[44–100\] +0\/3 0% \[0–56\] +−100% \[−100…−21\] +worse +−2\.0 +−1\.0 +−13,755 /,
    );
    expect(lines.find((line) => line.includes("runs grep in Bash"))).toContain("within noise");
    expect(result.stdout).toContain("overall (2 cases)");
  });

  it("prints the comparison as JSON with --json, and lists the cases only one side ran", () => {
    const b = JSON.parse(readFileSync(fixture("b.json"), "utf8")) as { cases: { id: string }[] };
    b.cases[1]!.id = "renamed";
    const edited = write(join(temp, "compare-b.json"), JSON.stringify(b));
    const result = evals(["compare", fixture("a.json"), edited, "--json"]);
    expect(result.code).toBe(0);
    const comparison = JSON.parse(result.stdout);
    expect(comparison.version).toBe(1);
    expect(comparison.cases.map((c: { id: string }) => c.id)).toEqual(["skill-then-grep"]);
    expect(comparison.only_in_a).toMatchObject([{ id: "grep-in-bash" }]);
    expect(comparison.only_in_b).toMatchObject([{ id: "renamed" }]);
    expect(comparison.overall.difference).toMatchObject({ difference: -1, verdict: "worse" });
    expect(evals(["compare", fixture("a.json"), edited]).stdout).toContain("only in B: find-todos › renamed");
  });

  it("writes the side-by-side HTML page with --html", () => {
    const result = evals(["compare", fixture("a.json"), fixture("b.json"), "--html", "comparison.html"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`evals compare: wrote ${join(temp, "comparison.html")}\n`);
    const html = readFileSync(join(temp, "comparison.html"), "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<tr class="cmp-case" data-verdict="worse" data-case="skill-then-grep">');
    expect(html).toContain('<tr class="cmp-overall" data-verdict="worse">');
  });

  it("exits 2 naming the file for an unreadable or invalid results file, and for a missing argument", () => {
    const missing = evals(["compare", fixture("a.json"), join(temp, "nothing.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nothing.json: no such file or folder");
    const notResults = write(
      join(temp, "compare-not-results.json"),
      JSON.stringify({ version: 1, cases: [] }),
    );
    const invalid = evals(["compare", notResults, fixture("b.json")]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/compare-not-results\.json \(field meta\): /);
    expect(evals(["compare", fixture("a.json")]).code).toBe(2);
    expect(evals(["compare", fixture("a.json"), fixture("b.json"), fixture("a.json")]).stderr).toContain(
      "unexpected argument",
    );
  });
});
