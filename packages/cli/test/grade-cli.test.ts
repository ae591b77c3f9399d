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
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeRunFolder } from "@evals/core";
import { fixtureHookInputs, fixtureRun, fixturesDir } from "@evals/test-kit/claude-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtIndex, evalsBin, runEvals } from "./evals-bin.js";

const temp = mkdtempSync(join(tmpdir(), "evals-grade-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** `evals grade ...args` (the first argument is "grade"). */
function grade(_command: "grade", ...args: string[]) {
  return runEvals(["grade", ...args]);
}

function write(path: string, text: string): string {
  writeFileSync(path, text);
  return path;
}

/** The multi-tool run's hook inputs as captured-event lines (what @evals/hooks writes). */
function capturedEvents(runId: string): string {
  return fixtureHookInputs("multi-tool")
    .map((event, seq) =>
      JSON.stringify({
        version: 1,
        captured_at: new Date(1_790_000_000_000 + seq * 100).toISOString(),
        run_id: runId,
        seq,
        pid: 1,
        event,
      }),
    )
    .join("\n");
}

/** The wire recordings of the example suites (`examples/<suite>/cassettes/**\/*.recording.json`). */
function realWireRecordings(): string[] {
  const examples = fileURLToPath(new URL("../../../examples/", import.meta.url));
  return readdirSync(examples, { recursive: true, encoding: "utf8" })
    .filter((path) => path.includes("cassettes") && path.endsWith(".recording.json"))
    .sort()
    .map((path) => join(examples, path));
}

let passingCase: string;
let failingCase: string;
let twoCases: string;

beforeAll(() => {
  // What the multi-tool run did: it pressed on after failures, which this case expects.
  passingCase = write(
    join(temp, "steps.case.yaml"),
    [
      "id: steps",
      "name: Does the steps",
      "prompt: do the steps",
      "behavior:",
      "  mustUseTools: [Bash, Read]",
      "expectedTrajectory: [Bash, Read, Read] # the Write was denied: attempted, not made",
      "expectedViolations:",
      "  - rule: stop-on-failure",
      "    type: unrequested-fix",
    ].join("\n"),
  );
  failingCase = write(
    join(temp, "strict.case.yaml"),
    "id: strict\nprompt: do the steps\nbehavior:\n  mustUseTools: [Grep]\n",
  );
  twoCases = write(join(temp, "two.yaml"), "id: one\n---\nid: two\nbehavior:\n  maxToolCalls: 1\n");
});

describe("evals grade", () => {
  it("grades a stream.jsonl and exits 0 on a pass, with a readable verdict", () => {
    const result = grade("grade", `${fixturesDir}multi-tool/stream.jsonl`, "--case", passingCase);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("PASS  steps (Does the steps)");
    expect(result.stdout).toContain("5 tool calls, agents: main");
    expect(result.stdout).toMatch(/ok\s+stop-on-failure\s+1\.00 {2}\(violations expected\)/);
    expect(result.stdout).toContain("run multi-tool from");
    expect(result.stdout).toMatch(
      /ok {6}1 stop-on-failure violation of type unrequested-fix occurred, as expected/,
    );
    expect(result.stdout).toMatch(/error \(expected\) unrequested-fix: Write/);
    expect(result.stdout).not.toContain("expected a stop-on-failure");
    expect(result.stdout.trim().endsWith("Verdict: PASS")).toBe(true);
  });

  it("grades stream-json under another name (run.ndjson, no extension) as the .jsonl, not as one bad JSON", () => {
    const lines = readFileSync(`${fixturesDir}multi-tool/stream.jsonl`, "utf8");
    const asJsonl = grade("grade", `${fixturesDir}multi-tool/stream.jsonl`, "--case", passingCase, "--json");
    for (const name of ["multi-tool.ndjson", "multi-tool"]) {
      const file = write(join(temp, name), lines);
      const result = grade("grade", file, "--case", passingCase, "--json");
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const { source: _source, ...rest } = JSON.parse(result.stdout);
      const { source: _jsonlSource, ...expected } = JSON.parse(asJsonl.stdout);
      expect(rest).toEqual(expected);
    }
  });

  it("exits 1 on a failure and says why", () => {
    const result = grade("grade", `${fixturesDir}multi-tool/stream.jsonl`, "--case", failingCase);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("FAIL  strict");
    expect(result.stdout).toContain("Verdict: FAIL (2 reasons)");
    expect(result.stdout).toContain("  - behavior: missing-required-tool: Grep was never called");
    expect(result.stdout).toMatch(
      / {2}- stop-on-failure: unrequested-fix: Write \/home\/dev\/project\/out.txt/,
    );
    expect(result.stdout).toContain("[event 10, toolu_fake0014]");
  });

  it("keeps its exit code and prints no EPIPE crash when the reader closes the pipe early (| head)", () => {
    // 3,000 copies of the real run's Bash call: a verdict of megabytes, most of it written after
    // `head -c 1` has read one byte and closed the pipe.
    const lines = readFileSync(`${fixturesDir}multi-tool/stream.jsonl`, "utf8").trimEnd().split("\n");
    const copies = Array.from({ length: 3000 }, (_, n) =>
      [lines[4], lines[5]].map((line) => (line as string).replaceAll("toolu_fake0002", `toolu_copy${n}`)),
    ).flat();
    const long = write(
      join(temp, "long.jsonl"),
      `${[...lines.slice(0, -1), ...copies, lines.at(-1)].join("\n")}\n`,
    );
    const child = spawnSync(
      "bash",
      [
        "-c",
        `"${process.execPath}" "${evalsBin}" grade "${long}" --case "${failingCase}" --json --verbose | head -c 1 > /dev/null; echo "exit \${PIPESTATUS[0]}" >&2`,
      ],
      { encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } },
    );
    expect(child.stderr).not.toContain("EPIPE");
    expect(child.stderr).toContain("exit 1");
  });

  // Root reads any file: the run is read as nobody then (setpriv), as a user reads another's run.
  const asRoot = process.getuid?.() === 0;
  it.runIf(!asRoot || existsSync("/usr/bin/setpriv"))(
    "exits 2 naming a run it may not read (EACCES), bare or in a run folder, not as an internal error",
    () => {
      const dir = mkdtempSync(join(tmpdir(), "evals-grade-unreadable-"));
      chmodSync(dir, 0o755);
      const folder = join(dir, "run-1");
      mkdirSync(folder, { mode: 0o755 });
      const file = join(folder, "stream.jsonl");
      copyFileSync(`${fixturesDir}multi-tool/stream.jsonl`, file);
      chmodSync(file, 0);
      const caseFile = write(join(dir, "case.yaml"), "id: unreadable\nprompt: do the steps\n");
      chmodSync(caseFile, 0o644);
      const user = asRoot ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
      try {
        for (const target of [file, folder]) {
          const [program = "", ...args] = [
            ...user,
            process.execPath,
            evalsBin,
            "grade",
            target,
            "--case",
            caseFile,
          ];
          const child = spawnSync(program, args, { encoding: "utf8" });
          expect(child.stderr).toBe(
            `evals grade: cannot read the run: EACCES: permission denied, open '${file}' (evals grade takes a run folder, test-output/<run id>, or its result.json, run.json, stream.jsonl or events.jsonl)\n`,
          );
          expect(child.status).toBe(2);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.runIf(existsSync("/dev/full"))(
    "exits 2 with one line, not a crash and the verdict's code, when its output cannot be written (a full disk)",
    () => {
      // `evals grade ... --json > report.json` on a full disk: ENOSPC on stdout. An exit code of 0 or
      // 1 would give a verdict nobody could read.
      for (const json of [["--json"], []]) {
        const child = spawnSync(
          "bash",
          [
            "-c",
            `"${process.execPath}" "${evalsBin}" grade "${fixturesDir}multi-tool/stream.jsonl" --case "${failingCase}" ${json.join(" ")} > /dev/full; echo "exit $?" >&2`,
          ],
          { encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } },
        );
        expect(child.stderr).toBe(
          "evals: cannot write the output: ENOSPC: no space left on device, write\nexit 2\n",
        );
      }
    },
  );

  it("--json of a run whose command holds a DEL or C1 control character is valid JSON and terminal-safe", () => {
    // Characters a terminal acts on are shown escaped; in a JSON report the escape must be JSON's
    // own (\u0085): "\x85" made the report invalid JSON. (sudo: forbidden-commands quotes it.)
    const stream = readFileSync(`${fixturesDir}multi-tool/stream.jsonl`, "utf8");
    expect(stream).toContain('"command":"ls"');
    const controls = write(
      join(temp, "controls.jsonl"),
      stream.replace('"command":"ls"', '"command":"sudo ls \\u0085\\u007f\\u009b2J"'),
    );
    const result = grade("grade", controls, "--case", failingCase, "--json", "--verbose");
    expect(result.code).toBe(1);
    expect(result.stdout).not.toMatch(/[\x7f-\x9f]/);
    expect(result.stdout).toContain('"sudo ls \\u0085\\u007f\\u009b2J"');
    expect(JSON.stringify(JSON.parse(result.stdout))).toContain('"sudo ls \x85\x7f\x9b2J"');
    const human = grade("grade", controls, "--case", failingCase, "--verbose");
    expect(human.stdout).toContain('Bash "sudo ls \\u0085\\u007f\\u009b2J"');
    expect(human.stdout).not.toMatch(/[\x7f-\x9f]/);
  });

  it("says in plain English when a violation the case forbids occurred", () => {
    const forbids = write(
      join(temp, "forbids.case.yaml"),
      "id: forbids\nprompt: do the steps\nexpectedViolations:\n  - { rule: stop-on-failure, shouldViolate: false }\n",
    );
    const result = grade("grade", `${fixturesDir}multi-tool/stream.jsonl`, "--case", forbids);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /FAIL {4}no stop-on-failure violation was expected, but one occurred: Write \/home\/dev\/project\/out.txt/,
    );
    expect(result.stdout).not.toContain("MISSING");
    expect(result.stdout).not.toContain("must not occur");
  });

  it("grades a run folder from its events.jsonl, or its stream.jsonl with the prompt from the events", () => {
    const hooksOnly = join(temp, "run-hooks");
    mkdirSync(hooksOnly);
    write(join(hooksOnly, "events.jsonl"), capturedEvents("run-hooks"));
    const fromHooks = grade("grade", hooksOnly, "--case", passingCase, "--json");
    expect(fromHooks.code).toBe(0);
    const hooksReport = JSON.parse(fromHooks.stdout);
    expect(hooksReport).toMatchObject({ format: "captured-events", caseId: "steps", passed: true });

    const both = join(temp, "run-both");
    mkdirSync(both);
    write(join(both, "events.jsonl"), capturedEvents("run-both"));
    copyFileSync(`${fixturesDir}multi-tool/stream.jsonl`, join(both, "stream.jsonl"));
    const fromStream = JSON.parse(grade("grade", both, "--case", passingCase, "--json").stdout);
    expect(fromStream.format).toBe("stream-json");
    const performance = fromStream.results.find(
      (result: { evaluator: string }) => result.evaluator === "performance-metrics",
    );
    expect(performance.metadata.costUsd).toBeCloseTo(0.30258);
  });

  it("infers the denials from hook files alone as the stream tells them: a denied Write was not made", () => {
    const expectsWrite = write(
      join(temp, "expects-write.case.yaml"),
      "id: expects-write\nprompt: do the steps\nexpectedTrajectory: [Bash, Write]\n",
    );
    const hooksOnly = join(temp, "run-hooks-denied");
    mkdirSync(hooksOnly);
    write(join(hooksOnly, "events.jsonl"), capturedEvents("run-hooks-denied"));
    for (const target of [
      hooksOnly,
      `${fixturesDir}multi-tool/hooks.jsonl`,
      `${fixturesDir}multi-tool/stream.jsonl`,
    ]) {
      const result = grade("grade", target, "--case", expectsWrite);
      expect(result.code, target).toBe(1);
      expect(result.stdout, target).toMatch(
        /trajectory: denied-call: expected call #2 Write was attempted but denied: toolu_fake0014 Write/,
      );
    }
  });

  it("prefers a run folder's run.json, and reads cassettes and AgentRunResults", () => {
    const run = fixtureRun("subagent");
    const folder = join(temp, "run-json");
    mkdirSync(folder);
    write(join(folder, "run.json"), JSON.stringify(run));
    write(join(folder, "events.jsonl"), "this would not parse\n");
    const delegates = write(
      join(temp, "delegates.case.json"),
      JSON.stringify({ id: "delegates", behavior: { shouldDelegate: true } }),
    );
    const fromFolder = grade("grade", folder, "--case", delegates);
    expect(fromFolder.code).toBe(0);
    expect(fromFolder.stdout).toContain("agents: main, general-purpose");

    const cassette = write(
      join(temp, "cassette.json"),
      JSON.stringify({ version: 1, kind: "cassette", run, interactions: [] }),
    );
    expect(grade("grade", cassette, "--case", delegates).code).toBe(0);
    const agentRun = write(
      join(temp, "agent-run.json"),
      JSON.stringify({ result: { run_id: "x", run, exit_code: 0 } }),
    );
    expect(grade("grade", agentRun, "--case", delegates).code).toBe(0);
    const noDelegation = write(
      join(temp, "no-delegation.case.json"),
      JSON.stringify({ id: "solo", behavior: { shouldDelegate: false } }),
    );
    expect(grade("grade", cassette, "--case", noDelegation).code).toBe(1);
  });

  it("does not warn that a hooks-only run should have used Grep/Glob: hooks do not say they were offered", () => {
    const toolUsage = write(
      join(temp, "tool-usage.case.yaml"),
      "id: tool-usage\nprompt: x\nrules:\n  tool-usage: {}\n",
    );
    const result = grade("grade", `${fixturesDir}rules/hooks.jsonl`, "--case", toolUsage);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/warning +bash-instead-of-(grep|glob)/);
    // Shown as info, with the reason, when every violation is listed.
    const verbose = grade("grade", `${fixturesDir}rules/hooks.jsonl`, "--case", toolUsage, "--verbose");
    expect(verbose.stdout).toMatch(/info +bash-instead-of-grep: Bash "grep -rn TODO \." could be Grep/);
    expect(verbose.stdout).toContain("the run does not say which tools were offered");
    expect(verbose.stdout).not.toMatch(/warning +bash-instead-of-(grep|glob)/);
  });

  it("reads the fixtures' hooks.jsonl ({input} lines) too", () => {
    const result = grade(
      "grade",
      `${fixturesDir}subagent/hooks.jsonl`,
      "--case",
      join(temp, "delegates.case.json"),
    );
    expect(result.code).toBe(0);
  });

  it("picks a case by id from a file with several", () => {
    const run = `${fixturesDir}multi-tool/stream.jsonl`;
    const ambiguous = grade("grade", run, "--case", twoCases);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("holds 2 cases; pick one with --case-id (one, two)");
    expect(grade("grade", run, "--case", twoCases, "--case-id", "one").code).toBe(1);
    expect(grade("grade", run, "--case", twoCases, "--case-id=two").stdout).toContain(
      "5 tool calls, at most 1 expected",
    );
    expect(grade("grade", run, "--case", twoCases, "--case-id", "three").stderr).toContain(
      'has no case "three"',
    );
  });

  it("exits 2 with file, line and field when the input is bad", () => {
    const badCase = write(join(temp, "bad.case.yaml"), "id: bad\nbehavior:\n  mustUseTool: [Read]\n");
    const invalid = grade("grade", `${fixturesDir}multi-tool/stream.jsonl`, "--case", badCase);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(
      `${badCase}:3:3 (field behavior.mustUseTool): unknown field "mustUseTool" (did you mean "mustUseTools"?)`,
    );

    const folder = join(temp, "run-broken");
    mkdirSync(folder);
    write(
      join(folder, "events.jsonl"),
      `${capturedEvents("run-broken").split("\n").slice(0, 2).join("\n")}\n{"version":1,"run_id":"x"}\n`,
    );
    const broken = grade("grade", folder, "--case", passingCase);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/cannot read the run: .*events\.jsonl:3 \(field captured_at\)/);

    const missing = grade("grade", join(temp, "nope"), "--case", passingCase);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such file or folder");

    const empty = join(temp, "empty-folder");
    mkdirSync(empty);
    expect(grade("grade", empty, "--case", passingCase).stderr).toContain(
      "found none of result.json, run.json, stream.jsonl, events.jsonl",
    );
    const notRun = write(join(temp, "other.json"), '{"hello": 1}');
    expect(grade("grade", notRun, "--case", passingCase).stderr).toContain(
      "not a Run, and no `run` or `result.run` field holds one",
    );
  });

  it("exits 2 naming a harness run folder's result.json and where it is cut off or invalid, with --case or its stored case (never 3)", () => {
    const folder = join(temp, "harness-folder");
    writeRunFolder(folder, "harness-folder", {
      result: {
        run_id: "harness-folder",
        run: fixtureRun("multi-tool"),
        exit_code: 0,
        timed_out: false,
        duration_ms: 1200,
        origin: "live",
      },
    });
    writeRunFolder(folder, "harness-folder", {
      case: { suite: "s", id: "steps", trial: 0, trials: 1, value: { id: "steps", prompt: "do the steps" } },
    });
    const file = join(folder, "result.json");
    const text = readFileSync(file, "utf8");
    for (const [broken, where] of [
      // Cut off in the middle of the fourth event (index 3).
      [
        text.slice(0, text.search(/"index": 3\b/) + 5),
        "(field run.events.3): not valid JSON: the file ends in the middle",
      ],
      [text.replace(/"index": 2\b/, '"index": 2 x'), "(field run.events.2): not valid JSON: "],
      [
        text.replace(/"type": "tool_call"/, '"type": "tool_cal"'),
        "(field run.events.2.type): not a valid AgentRunResult: Invalid discriminator value",
      ],
    ] as const) {
      writeFileSync(file, broken);
      for (const args of [["--case", passingCase], []]) {
        const refused = grade("grade", folder, ...args);
        expect(refused.stderr).toContain(`cannot read the run: ${file} ${where}`);
        expect(refused.code).toBe(2);
      }
    }
  });

  it("explains its usage", () => {
    const help = grade("grade", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: evals grade");
    expect(help.stdout).toContain("3 internal error");
    const noCase = grade("grade", `${fixturesDir}multi-tool/stream.jsonl`);
    expect(noCase.code).toBe(2);
    expect(noCase.stderr).toContain("--case <file> is required");
    expect(grade("grade", "a", "--case", "b", "--what").stderr).toContain("unknown option --what");
  });

  it("loads hook events named like JavaScript prototype keys as unknown events", () => {
    const inputs = readFileSync(`${fixturesDir}multi-tool/hooks.jsonl`, "utf8").trimEnd();
    for (const name of ["toString", "constructor", "__proto__"]) {
      const odd = `{"input":{"session_id":"s","cwd":"/home/dev/project","hook_event_name":"${name}"}}`;
      const file = write(join(temp, `proto-${name}.jsonl`), `${inputs}\n${odd}\n`);
      const result = grade("grade", file, "--case", passingCase);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
    }
  });

  it("takes a hooks-only run's final text from Stop", () => {
    // Captured without MessageDisplay: the last assistant message is only in Stop.
    const lines = readFileSync(`${fixturesDir}multi-tool/hooks.jsonl`, "utf8")
      .trimEnd()
      .split("\n")
      .filter((line) => !line.includes('"hook_event_name":"MessageDisplay"'));
    const file = write(join(temp, "no-display.jsonl"), `${lines.join("\n")}\n`);
    const respond = write(
      join(temp, "responds.case.yaml"),
      "id: responds\nbehavior:\n  expectedResponse: { contains: All steps done }\n",
    );
    const result = grade("grade", file, "--case", respond, "--json");
    expect(result.stderr).toBe("");
    const behavior = JSON.parse(result.stdout).verdicts.find(
      (verdict: { evaluator: string }) => verdict.evaluator === "behavior",
    );
    expect(behavior).toMatchObject({ ok: true, reasons: [] });
  });

  it("grades claude --output-format json --verbose output, and refuses the result-only json clearly", () => {
    const steps = write(
      join(temp, "echo.case.yaml"),
      "id: echo\nprompt: say hi\nbehavior:\n  mustUseTools: [Bash]\n  expectedResponse: { contains: hi }\n",
    );
    const messages = grade(
      "grade",
      `${fixturesDir}output-format-json/messages.json`,
      "--case",
      steps,
      "--json",
    );
    expect(messages.stderr).toBe("");
    expect(messages.code).toBe(0);
    expect(JSON.parse(messages.stdout).format).toBe("json-messages");
    // One call is "1 tool call", in the run line and in performance-metrics' summary.
    const verbose = grade(
      "grade",
      `${fixturesDir}output-format-json/messages.json`,
      "--case",
      steps,
      "--verbose",
    );
    expect(verbose.stdout).toContain("(json-messages): 1 tool call, agents: main");
    expect(verbose.stdout).not.toMatch(/\b1 tool calls\b/);
    // Saved by Windows PowerShell 5 (`| Out-File -Encoding utf8`): a byte order mark first.
    const withBom = write(
      join(temp, "messages-bom.json"),
      `\uFEFF${readFileSync(`${fixturesDir}output-format-json/messages.json`, "utf8")}`,
    );
    const bom = grade("grade", withBom, "--case", steps, "--json");
    expect(bom.stderr).toBe("");
    expect(JSON.parse(bom.stdout)).toEqual({ ...JSON.parse(messages.stdout), source: withBom });

    const resultOnly = `${fixturesDir}output-format-json/result.json`;
    const asJsonl = write(join(temp, "result-only.jsonl"), readFileSync(resultOnly, "utf8"));
    const folder = join(temp, "run-result-only");
    mkdirSync(folder);
    const inFolder = write(join(folder, "stream.jsonl"), readFileSync(resultOnly, "utf8"));
    for (const file of [resultOnly, asJsonl, inFolder]) {
      const refused = grade("grade", file === inFolder ? folder : file, "--case", steps);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toContain(`${file}: this is \`claude --output-format json\` output`);
      expect(refused.stderr).toContain("--output-format stream-json --verbose");
    }
  });

  it("says what a wire recording is and what to grade instead, not a schema error", () => {
    // A real recording of @evals/vcr, as the example suites keep them.
    const recording = realWireRecordings()[0];
    expect(recording, "no *.recording.json under examples/*/cassettes").toBeDefined();
    const { suite, case_id } = JSON.parse(readFileSync(recording as string, "utf8")).metadata;
    const refused = grade("grade", recording as string);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain(`${recording}: this is a wire recording of @evals/vcr`);
    expect(refused.stderr).toContain(`of case "${case_id}" in suite "${suite}"`);
    expect(refused.stderr).toContain(`its run folder, test-output/${suite}-${case_id}-t<n>-<id>/`);
    expect(refused.stderr).not.toMatch(/not a valid Run|field sources|expected array/);

    // Kept in a project that has run it: the message names the trials' run folders.
    const project = join(temp, "project-with-runs");
    const copy = join(project, "cassettes", suite, basename(recording as string));
    mkdirSync(dirname(copy), { recursive: true });
    copyFileSync(recording as string, copy);
    const trial = join(project, "test-output", `${suite}-${case_id}-t1-mwt9glwu-3b65f1`);
    mkdirSync(trial, { recursive: true });
    mkdirSync(join(project, "test-output", `${suite}-other-case-t1-mwt9glwu-3b65f1`));
    const named = grade("grade", copy, "--case", passingCase);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain(`(found: ${trial}).`);
  });

  it("grades a run whose last line was cut off, with a warning naming the file and line", () => {
    const lines = readFileSync(`${fixturesDir}multi-tool/stream.jsonl`, "utf8").trimEnd().split("\n");
    const folder = join(temp, "run-cut");
    mkdirSync(folder);
    // Killed while writing a line: the last one stops half way, with no newline.
    write(join(folder, "stream.jsonl"), `${lines.join("\n")}\n${lines[1]?.slice(0, 50)}`);
    write(join(folder, "events.jsonl"), `${capturedEvents("run-cut")}\n{"version":1,"captu`);
    const result = grade("grade", folder, "--case", passingCase);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `warning: ${join(folder, "stream.jsonl")}:${lines.length + 1}: the last line is cut off`,
    );
    expect(result.stderr).toMatch(
      new RegExp(`warning: ${join(folder, "events.jsonl")}:\\d+: the last line is cut off`),
    );
  });

  it("exits 2 with file, line and field for a case whose /regex/ is invalid (it crashed with exit 3)", () => {
    const badPattern = write(
      join(temp, "bad-pattern.case.yaml"),
      'id: bad-pattern\nbehavior:\n  expectedResponse: { matches: "/(/" }\n',
    );
    const refused = grade("grade", `${fixturesDir}multi-tool/stream.jsonl`, "--case", badPattern);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${badPattern}:3:`);
    expect(refused.stderr).toContain('"/(/" is not a valid regular expression');
    expect(refused.stderr).not.toContain("internal error");
  });

  it("exits 3 on an internal error, in one line (the stack only with --verbose)", () => {
    // The verdict cannot be written: stdout fails (what grade itself never expects).
    const brokenStdout = (verbose: boolean) =>
      spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const { evals } = await import(${JSON.stringify(builtIndex)});
const stdout = { write() { throw new Error("stdout is gone"); } };
process.exitCode = await evals(["grade", ...process.argv.slice(1)], { stdout, stderr: process.stderr });`,
          "--",
          `${fixturesDir}multi-tool/stream.jsonl`,
          "--case",
          passingCase,
          ...(verbose ? ["--verbose"] : []),
        ],
        { encoding: "utf8", timeout: 60_000, env: { ...process.env, FORCE_COLOR: "0" } },
      );
    const crashed = brokenStdout(false);
    expect(crashed.status).toBe(3);
    expect(crashed.stderr.trim().split("\n")).toHaveLength(1);
    expect(crashed.stderr).toMatch(/^evals grade: internal error: Error: stdout is gone \(this is a bug/);
    const verbose = brokenStdout(true);
    expect(verbose.status).toBe(3);
    expect(verbose.stderr).toMatch(/\n\s+at /);
  });
});
