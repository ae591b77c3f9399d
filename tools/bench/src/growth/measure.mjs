// One measurement of growth.bench.mjs, in a process of its own: prints one JSON line with what it
// measured and its peak memory (max RSS, KB).
import { copyFileSync, createReadStream, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
const [kind, ...args] = process.argv.slice(2);

async function timed(fn) {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

const measurements = {
  /** `cases` copies of the find-todos example's grep-in-bash case, `trials` each, replayed by runCases. */
  async replay(cases, trials, concurrency, dir) {
    const { loadCases } = await import("@evals/evaluators");
    const { runCases } = await import("@evals/harness");
    const { claudeCodeRunner } = await import("@evals/claude-code");
    const example = join(root, "examples/find-todos");
    const original = loadCases(join(example, "cases/find-todos.yaml")).find((c) => c.id === "grep-in-bash");
    const recordings = join(example, "cassettes/find-todos");
    const recording = readdirSync(recordings).find((name) => name.startsWith("grep-in-bash."));
    const hash = recording.split(".")[1];
    mkdirSync(join(dir, "cassettes/growth"), { recursive: true });
    const list = Array.from({ length: Number(cases) }, (_, i) => {
      const id = `grep-in-bash-${i + 1}`;
      copyFileSync(
        join(recordings, recording),
        join(dir, "cassettes/growth", `${id}.${hash}.recording.json`),
      );
      return { ...original, id, name: `${original.name} (${i + 1})` };
    });
    process.env.EVALS_OUTPUT_DIR = join(dir, "out");
    const { value, ms } = await timed(() =>
      runCases(list, {
        suite: "growth",
        cassette: { dir: join(dir, "cassettes"), mode: "strict" },
        trials: Number(trials),
        concurrency: Number(concurrency),
        agent: claudeCodeRunner,
        runAgent: { options: { claudeBin: join(root, "node_modules/.bin/claude") } },
        outputRoot: join(dir, "out"),
      }),
    );
    const errors = value.outcomes.flatMap((o) =>
      o.result.trials.filter((t) => t.status === "error").map((t) => t.error),
    );
    return {
      ms,
      passed: value.outcomes.filter((o) => o.passed).length,
      ...(errors.length ? { error: errors[0].slice(0, 300) } : {}),
    };
  },

  /** The bare pass: every line read and parsed, nothing kept. */
  async parse(file) {
    const { value, ms } = await timed(async () => {
      let count = 0;
      for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
        if (line) JSON.parse(line);
        count++;
      }
      return count;
    });
    return { ms, lines: value };
  },

  /**
   * @evals/core's JSONL reader over the file, every line validated by a schema of stream-json lines
   * (an object with a string `type`): what reading the run costs before anything is graded.
   */
  async "validated-read"(file) {
    const { readJsonl } = await import("@evals/core");
    const { z } = await import("zod");
    const schema = z.looseObject({ type: z.string() });
    const { value, ms } = await timed(async () => {
      let count = 0;
      for await (const _ of readJsonl(file, { schema })) count++;
      return count;
    });
    return { ms, lines: value };
  },

  /**
   * `evals grade <file> --case <a case with every default rule> --json`, the report written to a sink
   * that counts its bytes. `kind`: "breaks-rules" (acceptEdits, as an editing task runs: approval-gate
   * flags every Bash test run, a quarter of the calls), "mostly-passes" (the user approved in advance:
   * only the failed test runs the agent went on from are violations).
   */
  async grade(file, kind = "breaks-rules") {
    const { evals } = await import("@evals/cli");
    const caseFile = `${file}.${kind}.case.yaml`;
    writeFileSync(
      caseFile,
      kind === "breaks-rules"
        ? "id: growth\nname: a long run\nprompt: Refactor the modules and run the tests.\nagent:\n  options:\n    permissionMode: acceptEdits\n"
        : "id: growth\nname: a long run\nprompt: Refactor the modules and run the tests, go ahead without asking.\n",
    );
    let problems = "";
    let reportBytes = 0;
    const stdout = {
      write: (chunk) => {
        reportBytes += Buffer.byteLength(chunk);
        return true;
      },
    };
    const stderr = {
      write: (chunk) => {
        problems += chunk;
        return true;
      },
    };
    const { value, ms } = await timed(() =>
      evals(["grade", file, "--case", caseFile, "--json", "--verbose"], { stdout, stderr }),
    );
    // Exit 1 is a failed case (the generated run breaks rules); 2 and 3 say why in stderr.
    return { ms, exit: value, reportBytes, ...(value > 1 ? { stderr: problems.slice(0, 2000) } : {}) };
  },

  /**
   * A harness run folder of the stream-json run `file` in `dir`, written as runAgent and the harness
   * write it (@evals/core's writeRunFolder): result.json holding the whole run, pretty-printed, the
   * agent's options, and the case the harness ran in the manifest. `prompt`: the case's, as the
   * harness ran it (the stored run's user message: approval-gate reads it).
   */
  async "harness-folder"(file, dir, prompt) {
    const { runFromClaudeOutput, writeRunFolder } = await import("@evals/core");
    const prompts = [prompt];
    const { value, ms } = await timed(() => {
      const { run } = runFromClaudeOutput(file, { prompts, runId: "growth-t0" });
      const result = {
        run_id: "growth-t0",
        run,
        exit_code: 0,
        timed_out: false,
        duration_ms: 1,
        origin: "live",
      };
      writeRunFolder(dir, "growth-t0", { result, agent: { prompts } });
      writeRunFolder(dir, "growth-t0", {
        case: {
          suite: "growth",
          id: "growth",
          trial: 0,
          trials: 1,
          value: { id: "growth", prompt: prompts[0] },
        },
      });
      return run.events.length;
    });
    return { ms, events: value };
  },

  /** The JSON results, JUnit and HTML report of `cases` cases of `calls` tool calls, every run kept. */
  async reports(cases, calls) {
    const { RunBuilder } = await import("@evals/core");
    const { buildResults, caseResult, renderHtmlReport, renderJunit } = await import("@evals/logging");
    const results = buildResults(
      Array.from({ length: Number(cases) }, (_, n) => {
        const builder = new RunBuilder(["synthetic"]);
        builder.meta.model = "claude-sonnet-4-5";
        builder.push({ type: "user_message", agent: "main", text: `Case ${n}: refactor module ${n}` });
        for (let i = 0; i < Number(calls); i++) {
          const id = `toolu_${n}_${i}`;
          builder.push({
            type: "tool_call",
            agent: "main",
            id,
            name: i % 2 ? "Read" : "Bash",
            input: i % 2 ? { file_path: `/p/src/m${i}.ts` } : { command: `npm test -- ${n}-${i}` },
          });
          builder.push({
            type: "tool_result",
            agent: "main",
            id,
            output: `result of call ${i}\n${"line\n".repeat(8)}`,
            is_error: i % 17 === 0,
          });
        }
        builder.push({
          type: "final_result",
          agent: "main",
          subtype: "success",
          is_error: false,
          num_turns: Number(calls),
          total_cost_usd: 0.02,
        });
        const failing = n % 10 === 3;
        return caseResult({
          id: `case-${n}`,
          name: `case ${n}`,
          suite: `suite ${n % 5}`,
          tags: [],
          trials: [
            {
              status: failing ? "failed" : "passed",
              scores: [{ scorer: "trajectory", score: failing ? 0.5 : 1, passed: !failing }],
              violations: [],
              duration_ms: 1000,
              cost_usd: 0.02,
              run: builder.build(),
            },
          ],
        });
      }),
      { suite: "growth", env: {} },
    );
    const json = await timed(() => JSON.stringify(results));
    const html = await timed(() => renderHtmlReport(results));
    const junit = await timed(() => renderJunit(results));
    return {
      jsonMs: json.ms,
      jsonBytes: Buffer.byteLength(json.value),
      htmlMs: html.ms,
      htmlBytes: Buffer.byteLength(html.value),
      junitMs: junit.ms,
      junitBytes: Buffer.byteLength(junit.value),
    };
  },
};

const result = await measurements[kind](...args);
const { userCPUTime, systemCPUTime, maxRSS } = process.resourceUsage();
// CPU time (µs to ms) beside wall time: on a shared machine the wall time swings with the load.
console.log(JSON.stringify({ ...result, cpuMs: (userCPUTime + systemCPUTime) / 1000, maxRssKb: maxRSS }));
