import type { ViolationRow } from "./queries.js";

/**
 * Safe HTML for the viewer's pages: every value from the database or a run folder goes through `text`
 * (case names may hold markup and terminal escapes), and `html` marks a fragment already made safe.
 */
export interface SafeHtml {
  readonly html: string;
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return { html: out };
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map(render).join("");
  if (typeof value === "object" && "html" in value) return (value as SafeHtml).html;
  return text(String(value));
}

/** Escapes markup, and shows control characters (a terminal's ESC, BEL…) as visible \xNN. */
export function text(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;")
    .replace(
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
      (char) => `<span class="ctl">\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}</span>`,
    );
}

/**
 * The shown start of a message cut `moreBytes` short (0: not cut), saying how much is left out and
 * linking to all of it when `whole` names where.
 */
export function cutText(shown: string, moreBytes: number, whole?: string): SafeHtml {
  if (moreBytes <= 0) return html`${shown}`;
  return html`${shown}… (${size(moreBytes)} more${whole ? html`: <a href="${whole}">whole message</a>` : ""})`;
}

/** A violation's message, cut when long, linked to all of it. */
export function violationMessage(runId: string, v: ViolationRow): SafeHtml {
  return cutText(
    v.message,
    v.message_more,
    href("/message", { run: runId, pos: v.position, violation: v.seq }),
  );
}

function size(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1_000) return `${(bytes / 1_000).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/** A link to a viewer page with its query parameters encoded. */
export function href(path: string, params: Record<string, string | number | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, String(value));
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
header{background:#1d2330;color:#fff;padding:.6em 1.2em;display:flex;gap:1.4em;align-items:baseline}
header a{color:#cfe0ff;text-decoration:none}header strong{font-size:1.1em}
main{padding:1em 1.4em;max-width:1300px}
table{border-collapse:collapse;width:100%;margin:.6em 0 1.2em}th,td{text-align:left;padding:.3em .6em;border-bottom:1px solid #e3e6eb;vertical-align:top}
th{background:#eef1f5}td.num{text-align:right;font-variant-numeric:tabular-nums}
.passed{color:#17803d}.failed{color:#c0262d}.errored{color:#b35c00}.skipped{color:#6b7280}
.ctl{color:#b35c00;background:#fff3e0;font-family:monospace}
pre,code{font-family:ui-monospace,monospace;font-size:12.5px}pre{white-space:pre-wrap;word-break:break-word;margin:0}
.note{background:#fff8e1;border:1px solid #f0d98c;padding:.5em .8em;margin:.6em 0}
.error{background:#fdecec;border:1px solid #f2b8b8;padding:.5em .8em;margin:.6em 0}
nav.pages{margin:.6em 0}nav.pages a,nav.pages span{margin-right:1em}
svg{background:#fff;border:1px solid #e3e6eb}
form{margin:.6em 0}select{max-width:40em}
`;

/** A whole page: the header's links, the title, the body. */
export function page(title: string, body: SafeHtml): string {
  return `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8"><title>${title} · evals view</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${{ html: STYLE }}</style></head>
<body><header><strong>evals view</strong><a href="/">Runs</a><a href="/flaky">Flaky cases</a><a href="/compare">Compare runs</a></header>
<main><h1>${title}</h1>${body}</main></body></html>`.html
  }`;
}

/** "Page n of m" with previous and next links, for a list of `total` items `size` to a page. */
export function pager(
  path: string,
  params: Record<string, string>,
  pageNumber: number,
  size: number,
  total: number,
): SafeHtml {
  const pages = Math.max(1, Math.ceil(total / size));
  const link = (n: number, label: string) =>
    html`<a href="${href(path, { ...params, page: n })}">${label}</a>`;
  return html`<nav class="pages"><span>Page ${pageNumber} of ${pages} (${total})</span>${
    pageNumber > 1 ? link(pageNumber - 1, "← previous") : ""
  }${pageNumber < pages ? link(pageNumber + 1, "next →") : ""}</nav>`;
}

export function when(value: string | Date | null): string {
  if (!value) return "";
  return new Date(value).toISOString().slice(0, 19).replace("T", " ");
}

export function usd(value: number | null | undefined): string {
  return value === null || value === undefined ? "" : `$${value.toFixed(4)}`;
}

export function percent(value: number | null): string {
  return value === null ? "–" : `${(value * 100).toFixed(0)}%`;
}
