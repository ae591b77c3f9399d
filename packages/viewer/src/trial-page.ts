import { existsSync } from "node:fs";
import { type RunEvent, readRunFolder } from "@evals/core";
import { textPrefix } from "@evals/logging";
import { type Step, type Store, trialSteps } from "@evals/store";
import { cutText, href, html, page, type SafeHtml, usd, violationMessage } from "./html.js";
import { findTrial, trialViolations } from "./queries.js";

/** Longest a shown event's JSON may be: a huge tool output stays readable and the page small. */
const EVENT_CHARS = 4000;

/**
 * `/trial?run=&pos=&trial=`: one trial's violations and transcript, read from its run folder through
 * @evals/core's reader; when the folder is gone (or unreadable) it says so and shows the tool calls
 * the database kept (the `steps` rows).
 */
export async function trialPage(
  store: Store,
  runId: string,
  position: number,
  trial: number,
): Promise<string | undefined> {
  const row = await findTrial(store, runId, position, trial);
  if (!row) return undefined;
  const violations = await trialViolations(store, runId, position, trial);
  const transcript = await transcriptOf(store, row.run_folder, { run_id: runId, position, trial });
  const facts = html`<p><a href="${href("/case", { suite: row.suite, id: row.case_id })}">${row.name}</a> in <a href="${href("/run", { id: runId })}">run ${runId.slice(0, 12)}</a>: trial ${trial} <span class="${row.status}">${row.status}</span>${row.outcome ? ` (${row.outcome})` : ""}, ${row.turns ?? "?"} turn(s), ${row.tool_calls ?? "?"} tool call(s), ${usd(row.cost_usd)}${row.origin ? `, ${row.origin}` : ""}${row.recording && row.recording !== "live" ? html` from <code class="recording">${row.recording}</code>` : ""}</p>${
    row.error
      ? html`<pre class="error">${cutText(row.error, row.error_more ?? 0, href("/message", { run: runId, pos: position, trial }))}</pre>`
      : ""
  }`;
  const list =
    violations.length === 0
      ? html`<p>No violations.</p>`
      : html`<ul id="violations">${violations.map((v) => html`<li class="${v.expected ? "" : "failed"}">${v.severity} <code>${v.rule}</code> (${v.type}): ${violationMessage(runId, v)}${v.expected ? " (expected)" : ""}</li>`)}</ul>`;
  return page(
    `Trial ${trial} of ${row.name}`,
    html`${facts}<h2>Violations</h2>${list}<h2>Transcript</h2>${transcript}`,
  );
}

async function transcriptOf(
  store: Store,
  folder: string | null,
  key: { run_id: string; position: number; trial: number },
): Promise<SafeHtml> {
  let gone: SafeHtml;
  if (!folder) gone = html`<p class="note">The results kept no run folder for this trial.</p>`;
  else if (!existsSync(folder))
    gone = html`<p class="note">The trial's run folder <code>${folder}</code> is gone (moved or deleted).</p>`;
  else {
    try {
      const run = await readRunFolder(folder, { onError: "skip" });
      return html`<p>From the run folder <code>${folder}</code> (${run.source}).</p>${run.warnings.map((w) => html`<p class="note">${w}</p>`)}${eventsTable(run.run.events)}`;
    } catch (error) {
      gone = html`<p class="error">The trial's run folder <code>${folder}</code> cannot be read: ${(error as Error).message}</p>`;
    }
  }
  const steps = await trialSteps(store, key);
  return html`${gone}${
    steps.length === 0
      ? html`<p>The database kept no tool calls for this trial either.</p>`
      : html`<p>The ${steps.length} tool call(s) the database kept:</p>${stepsTable(steps)}`
  }`;
}

function eventsTable(events: RunEvent[]): SafeHtml {
  return html`<table id="transcript"><thead><tr><th>#</th><th>Agent</th><th>Event</th><th>Content</th></tr></thead><tbody>${events.map(
    (event) => {
      const { index, agent, type, ...rest } = event as RunEvent & Record<string, unknown>;
      return html`<tr><td class="num">${index}</td><td>${agent}</td><td>${type}${"name" in rest ? html` <code>${String(rest.name)}</code>` : ""}</td><td><pre>${clip(rest)}</pre></td></tr>`;
    },
  )}</tbody></table>`;
}

function stepsTable(steps: Step[]): SafeHtml {
  return html`<table id="steps"><thead><tr><th>Step</th><th>Event</th><th>Agent</th><th>Tool</th><th>Input</th></tr></thead><tbody>${steps.map(
    (s) =>
      html`<tr><td class="num">${s.seq + 1}</td><td class="num">${s.event_index}</td><td>${s.agent}</td><td><code>${s.tool}</code>${s.is_error ? html` <span class="failed">error</span>` : ""}</td><td><pre>${clip(s.input)}</pre></td></tr>`,
  )}</tbody></table>`;
}

function clip(value: unknown): SafeHtml {
  const json = typeof value === "string" ? value : JSON.stringify(value, null, 1);
  const shown = textPrefix(json, EVENT_CHARS);
  return cutText(shown, Buffer.byteLength(json) - Buffer.byteLength(shown));
}
