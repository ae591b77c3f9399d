// @evals/viewer: `evals view`'s first page (the runs, their chart) and a case's page over 100 runs x
// 1,000 cases in the embedded database (PGlite), served by the viewer's HTTP server and fetched whole.
// Goal: the first page under 1 s.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildResults, caseResult } from "@evals/logging";
import { Store } from "@evals/store";
import { startViewer } from "@evals/viewer";
import { envCount } from "./bench-kit.mjs";

const CASES = envCount("BENCH_VIEWER_CASES", 1000);
const RUNS = envCount("BENCH_VIEWER_RUNS", 100);

/** A run of CASES cases (one in ten failing, moving with `run`), finishing `run` hours in. */
function makeResults(run) {
  const cases = Array.from({ length: CASES }, (_, n) => {
    const failing = (n + run) % 10 === 3;
    return caseResult({
      id: `case-${n}`,
      name: `case ${n}`,
      suite: `suite ${n % 5}`,
      trials: [
        {
          status: failing ? "failed" : "passed",
          scores: [{ scorer: "rules", score: failing ? 0 : 1, passed: !failing }],
          violations: failing
            ? [
                {
                  rule: "read-before-edit",
                  type: "edit-without-read",
                  severity: "error",
                  message: "Edit without Read",
                },
              ]
            : [],
          duration_ms: 1000 + n,
          origin: "replay",
        },
      ],
    });
  });
  const finishedAt = new Date(Date.parse("2026-11-01T00:00:00Z") + run * 3_600_000);
  return buildResults(cases, {
    suite: "bench",
    env: {},
    finishedAt,
    startedAt: new Date(finishedAt.getTime() - 60_000),
    meta: { git_commit: String(run % 10).repeat(40), git_branch: "main" },
  });
}

async function timedFetch(url) {
  const start = process.hrtime.bigint();
  const response = await fetch(url);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body.slice(0, 300)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const root = mkdtempSync(join(tmpdir(), "bench-viewer-"));
try {
  const store = await Store.open({ kind: "embedded", dir: join(root, "db") });
  const fillStart = Date.now();
  for (let run = 0; run < RUNS; run++) await store.record(makeResults(run), "run");
  const fillS = (Date.now() - fillStart) / 1000;
  const viewer = await startViewer({ store });
  try {
    const min = async (path) => {
      const times = [];
      for (let round = 0; round < 3; round++) times.push(await timedFetch(new URL(path, viewer.url)));
      return Math.min(...times);
    };
    const first = await min("/");
    const casePage = await min("/case?suite=suite%200&id=case-500");
    const flaky = await min("/flaky");
    console.log(`evals view over ${RUNS} runs x ${CASES.toLocaleString("en")} cases (embedded):`);
    console.log(`  (filling the database took ${fillS.toFixed(1)} s)`);
    console.log(`  first page (50 runs, chart): ${first.toFixed(0)} ms (goal: under 1000 ms)`);
    console.log(`  a case's page (its last 50 runs, every trial): ${casePage.toFixed(0)} ms`);
    console.log(`  flaky cases: ${flaky.toFixed(0)} ms`);
  } finally {
    await viewer.close();
    await store.close();
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
