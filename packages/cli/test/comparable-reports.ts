/**
 * Reports of two runs of the same cases, made comparable: what differs from one run to the next
 * whatever the machines (times and durations, each trial's run id, folder and session id, the temp
 * copy of the fixture the agent worked in) is replaced by a placeholder; everything else must be equal.
 */

const TIMING_KEY = /(^|_)(at|ms|ts)$|Ms$|^(timestamp|started_at|finished_at|duration_ms)$/;
/** Each run's own names: its run id and folder, and the session id the claude CLI gave it. */
const RUN_KEY = /^(run_id|runId|output_dir|outputDir|session_id|sessionId)$/;
/** The temp folder runCase copies a case's fixture into, new for every trial. */
const FIXTURE_COPY = /evals-fixture-[A-Za-z0-9]+/g;
/** A trial's run id: `<suite>-<case>-t<n>[-s<i>of<n>]-<UTC time>-<12 hex>` (core's newRunId). */
const RUN_ID = /[a-z0-9_-]+-t\d+(-s\d+of\d+)?-\d{8}T\d{9}Z-[0-9a-f]{12}/g;

/** A time written out in a page (a comparison's runs say when they finished). */
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;
/** A comparison table row's Δ time: the last of its four delta cells (turns, tool calls, tokens, time). */
const DELTA_TIME = /((?:<td class="num">[^<]*<\/td>){3}<td class="num">)[^<]*(<\/td>)/g;

function normalize(value: unknown, key = ""): unknown {
  if (TIMING_KEY.test(key)) return typeof value === "number" || typeof value === "string" ? "<time>" : value;
  if (RUN_KEY.test(key)) return "<run>";
  if (typeof value === "string") return normalizeText(value);
  if (Array.isArray(value)) return value.map((item) => normalize(item));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, normalize(item, name)]));
  return value;
}

function normalizeText(text: string): string {
  return text.replace(FIXTURE_COPY, "evals-fixture-<tmp>").replace(RUN_ID, "<run>");
}

/** A results file (latest.json or a history file), comparable. */
export function comparableJson(text: string): unknown {
  return normalize(JSON.parse(text));
}

/** A JUnit file, comparable: its time and timestamp attributes blanked. */
export function comparableJunit(text: string): string {
  return normalizeText(text.replace(/ (time|timestamp)="[^"]*"/g, ' $1=""'));
}

/**
 * An HTML report (or a comparison page), comparable: its page without the data, its times blanked,
 * and each data element's JSON normalized.
 */
export function comparableHtml(text: string): { page: string; data: Record<string, unknown> } {
  const data: Record<string, unknown> = {};
  const page = text.replace(
    /<script type="application\/json" id="([^"]+)">([\s\S]*?)<\/script>/g,
    (_all, id: string, json: string) => {
      data[id] = normalize(JSON.parse(json));
      return `<script type="application/json" id="${id}"></script>`;
    },
  );
  const timed = page
    .replace(ISO_TIME, "<time>")
    .replace(DELTA_TIME, "$1<time>$2")
    .replace(/<span class="static-duration">[^<]*<\/span>/g, '<span class="static-duration"><time></span>');
  return { page: normalizeText(timed), data };
}
