/**
 * A readable structural diff of two JSON values: `messages[3].content[0].text: recorded "X", got "Y"`.
 */

export interface Difference {
  /** Where they differ, e.g. `messages[3].content[0].text` (empty for the root). */
  path: string;
  /** The recorded value (undefined when the field is new). */
  recorded?: unknown;
  /** The value in the request (undefined when the field is missing). */
  got?: unknown;
}

function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Every leaf where `recorded` and `got` differ, in document order. */
export function diffValues(recorded: unknown, got: unknown, path = "", out: Difference[] = []): Difference[] {
  if (Array.isArray(recorded) && Array.isArray(got)) {
    const length = Math.max(recorded.length, got.length);
    for (let index = 0; index < length; index++) {
      if (index >= recorded.length) out.push({ path: join(path, index), got: got[index] });
      else if (index >= got.length) out.push({ path: join(path, index), recorded: recorded[index] });
      else diffValues(recorded[index], got[index], join(path, index), out);
    }
    return out;
  }
  if (isObject(recorded) && isObject(got)) {
    const keys = new Set([...Object.keys(recorded), ...Object.keys(got)]);
    for (const key of keys) {
      if (!(key in got)) out.push({ path: join(path, key), recorded: recorded[key] });
      else if (!(key in recorded)) out.push({ path: join(path, key), got: got[key] });
      else diffValues(recorded[key], got[key], join(path, key), out);
    }
    return out;
  }
  if (recorded !== got) out.push({ path, recorded, got });
  return out;
}

/** A short rendering of a value: strings quoted and cut around `focus`, objects as compact JSON. */
function show(value: unknown, focus = 0, width = 80): string {
  if (value === undefined) return "(absent)";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const start = Math.max(0, Math.min(focus - 20, text.length - width));
  let cut = text.slice(start, start + width);
  if (start > 0) cut = `…${cut}`;
  if (start + width < text.length) cut = `${cut}…`;
  return typeof value === "string" ? JSON.stringify(cut) : cut;
}

function firstDifferentChar(a: string, b: string): number {
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index++;
  return index;
}

/** One line per difference: `path: recorded "X", got "Y"`. */
export function formatDifference(difference: Difference): string {
  const { path, recorded, got } = difference;
  const where = path || "(request)";
  if (recorded === undefined) return `${where}: not recorded, got ${show(got)}`;
  if (got === undefined) return `${where}: recorded ${show(recorded)}, missing now`;
  const focus =
    typeof recorded === "string" && typeof got === "string" ? firstDifferentChar(recorded, got) : 0;
  return `${where}: recorded ${show(recorded, focus)}, got ${show(got, focus)}`;
}

/** The differences as lines, at most `limit` of them, with a count of the rest. */
export function formatDifferences(differences: Difference[], limit = 10): string {
  const lines = differences.slice(0, limit).map(formatDifference);
  if (differences.length > limit) lines.push(`… and ${differences.length - limit} more differences`);
  return lines.join("\n");
}
