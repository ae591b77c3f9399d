/**
 * Keeps captured lines bounded. A string longer than the limit (in UTF-8 bytes) is cut at a
 * character boundary and ends with a marker. An array or object is cut only when its own members
 * (not counting members that were cut themselves) add up past the limit: an array keeps its first
 * items, an object its first members plus an `evals_hook_truncated` member saying what was
 * dropped. Every cut is reported as a path such as `event.tool_response.file.content`.
 * Plain Node, no zod: the hook executable imports this file.
 */

export const DEFAULT_MAX_FIELD_BYTES = 256 * 1024;

/** Starts the marker appended to a cut string: `…[truncated by evals-hook: kept 262144 of 1048576 bytes]`. */
export const TRUNCATION_MARKER = "…[truncated by evals-hook: ";

/** The member added to an object whose members were dropped. */
export const TRUNCATED_KEY = "evals_hook_truncated";

export interface TruncateResult<T> {
  value: T;
  /** Paths of the fields that were cut, in document order. */
  truncated: string[];
  /** Length of `JSON.stringify(value)` in UTF-8 bytes. */
  bytes: number;
}

/**
 * Cuts every field of `value` larger than `maxFieldBytes`. The root itself is never cut as a
 * container (its members are), so required top-level fields survive.
 */
export function truncateLargeFields<T>(
  value: T,
  maxFieldBytes: number,
  rootPath = "event",
): TruncateResult<T> {
  const truncated: string[] = [];
  const result = cut(value, rootPath, Math.max(1, Math.floor(maxFieldBytes)), truncated, true);
  return { value: result.value as T, truncated, bytes: result.bytes };
}

interface Sized {
  value: unknown;
  /** JSON size in UTF-8 bytes. */
  bytes: number;
  /** JSON size not counting members that were cut (0 when this value was cut). */
  ownBytes: number;
}

function cut(value: unknown, path: string, max: number, truncated: string[], isRoot = false): Sized {
  if (typeof value === "string") return cutString(value, path, max, truncated);
  if (Array.isArray(value)) return cutArray(value, path, max, truncated, isRoot);
  if (value !== null && typeof value === "object") {
    return cutObject(value as Record<string, unknown>, path, max, truncated, isRoot);
  }
  // Numbers, booleans, null (JSON.parse output has nothing else).
  const bytes = String(JSON.stringify(value) ?? "null").length;
  return { value, bytes, ownBytes: bytes };
}

function cutString(value: string, path: string, max: number, truncated: string[]): Sized {
  const length = Buffer.byteLength(value, "utf8");
  if (length <= max) {
    const bytes = jsonBytes(value);
    return { value, bytes, ownBytes: bytes };
  }
  const buffer = Buffer.from(value, "utf8");
  let end = max;
  // Back up to the start of a UTF-8 sequence so no character is split.
  while (end > 0 && ((buffer[end] ?? 0) & 0xc0) === 0x80) end--;
  const kept = `${buffer.toString("utf8", 0, end)}${TRUNCATION_MARKER}kept ${end} of ${length} bytes]`;
  truncated.push(path);
  return { value: kept, bytes: jsonBytes(kept), ownBytes: 0 };
}

function cutArray(value: unknown[], path: string, max: number, truncated: string[], isRoot: boolean): Sized {
  const items = value.map((item, index) => cut(item, `${path}[${index}]`, max, truncated));
  const overhead = 2 + Math.max(0, items.length - 1);
  const bytes = overhead + sum(items, (item) => item.bytes);
  const ownBytes = overhead + sum(items, (item) => item.ownBytes);
  if (ownBytes <= max || isRoot) {
    const changed = items.some((item, index) => item.value !== value[index]);
    return { value: changed ? items.map((item) => item.value) : value, bytes, ownBytes };
  }
  const kept: Sized[] = [];
  let size = 2;
  for (const item of items) {
    const next = size + item.ownBytes + (kept.length > 0 ? 1 : 0);
    if (next > max) break;
    kept.push(item);
    size = next;
  }
  truncated.push(path);
  return {
    value: kept.map((item) => item.value),
    bytes: 2 + Math.max(0, kept.length - 1) + sum(kept, (item) => item.bytes),
    ownBytes: 0,
  };
}

function cutObject(
  value: Record<string, unknown>,
  path: string,
  max: number,
  truncated: string[],
  isRoot: boolean,
): Sized {
  const members: { key: string; keyBytes: number; item: Sized }[] = [];
  let changed = false;
  for (const key of Object.keys(value)) {
    const item = cut(value[key], childPath(path, key), max, truncated);
    if (item.value !== value[key]) changed = true;
    members.push({ key, keyBytes: jsonBytes(key) + 1, item });
  }
  const overhead = 2 + Math.max(0, members.length - 1) + sum(members, (member) => member.keyBytes);
  const bytes = overhead + sum(members, (member) => member.item.bytes);
  const ownBytes = overhead + sum(members, (member) => member.item.ownBytes);
  if (ownBytes <= max || isRoot) return { value: changed ? objectOf(members) : value, bytes, ownBytes };

  const marker = (count: number) => `kept ${count} of ${members.length} members (${bytes} bytes)`;
  // Room for the marker member, sized for the longest count it can show.
  let size = 2 + jsonBytes(TRUNCATED_KEY) + 1 + jsonBytes(marker(members.length)) + 1;
  const kept: typeof members = [];
  for (const member of members) {
    const next = size + member.keyBytes + member.item.ownBytes + (kept.length > 0 ? 1 : 0);
    if (next > max) break;
    kept.push(member);
    size = next;
  }
  const out = objectOf(kept);
  out[TRUNCATED_KEY] = marker(kept.length);
  truncated.push(path);
  return { value: out, bytes: jsonBytes(out), ownBytes: 0 };
}

/** A plain object from members; defineProperty keeps a "__proto__" key an ordinary member. */
function objectOf(members: { key: string; item: Sized }[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, item } of members) {
    Object.defineProperty(out, key, {
      value: item.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function sum<T>(items: readonly T[], size: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += size(item);
  return total;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function childPath(path: string, key: string): string {
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
