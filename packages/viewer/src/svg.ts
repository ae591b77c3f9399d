import { html, type SafeHtml } from "./html.js";

const WIDTH = 900;
const HEIGHT = 220;
const PAD = 36;

export interface ChartPoint {
  /** The pass rate, 0..1 (null: no verdict). */
  rate: number | null;
  /** The 95% band, when there is one. */
  low?: number;
  high?: number;
  /** A bar under the line (the run's cost), 0..1 of the tallest. */
  bar?: number;
  label: string;
  link: string;
}

/**
 * An inline SVG line chart of pass rates, oldest left: one linked dot per point (its <title> the
 * label), the 95% band shaded when the points carry one, and bars (cost) when they carry those.
 */
export function rateChart(points: ChartPoint[], caption: string): SafeHtml {
  if (points.length === 0) return html``;
  const step = points.length > 1 ? (WIDTH - 2 * PAD) / (points.length - 1) : 0;
  const x = (i: number) => PAD + (points.length > 1 ? i * step : (WIDTH - 2 * PAD) / 2);
  const y = (rate: number) => HEIGHT - PAD - rate * (HEIGHT - 2 * PAD);
  const banded = points.filter((p) => p.low !== undefined && p.high !== undefined);
  const band =
    banded.length > 0
      ? [
          ...points.map((p, i) => (p.high === undefined ? "" : `${x(i).toFixed(1)},${y(p.high).toFixed(1)}`)),
          ...points
            .map((p, i) => (p.low === undefined ? "" : `${x(i).toFixed(1)},${y(p.low).toFixed(1)}`))
            .reverse(),
        ]
          .filter(Boolean)
          .join(" ")
      : "";
  const barWidth = Math.max(2, Math.min(18, step * 0.6));
  const bars = points.map((p, i) =>
    p.bar === undefined
      ? ""
      : html`<rect class="cost" x="${(x(i) - barWidth / 2).toFixed(1)}" y="${(HEIGHT - PAD - p.bar * 40).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(p.bar * 40).toFixed(1)}" fill="#c9d6ea"/>`,
  );
  const line = points
    .map((p, i) => (p.rate === null ? "" : `${x(i).toFixed(1)},${y(p.rate).toFixed(1)}`))
    .filter(Boolean)
    .join(" ");
  const dots = points.map((p, i) =>
    p.rate === null
      ? ""
      : html`<a href="${p.link}"><circle cx="${x(i).toFixed(1)}" cy="${y(p.rate).toFixed(1)}" r="4" fill="#2458b3"><title>${p.label}</title></circle></a>`,
  );
  const grid = [0, 0.5, 1].map(
    (r) =>
      html`<line x1="${PAD}" x2="${WIDTH - PAD}" y1="${y(r)}" y2="${y(r)}" stroke="#e3e6eb"/><text x="4" y="${y(r) + 4}" font-size="11" fill="#6b7280">${r * 100}%</text>`,
  );
  return html`<figure><svg role="img" aria-label="${caption}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" xmlns="http://www.w3.org/2000/svg">${grid}${
    band ? html`<polygon class="band" points="${band}" fill="#2458b3" fill-opacity="0.15"/>` : ""
  }${bars}<polyline points="${line}" fill="none" stroke="#2458b3" stroke-width="2"/>${dots}</svg><figcaption>${caption}</figcaption></figure>`;
}
