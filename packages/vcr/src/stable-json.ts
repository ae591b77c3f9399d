import { createHash } from "node:crypto";

/** A copy of `value` with every object's keys sorted, so its JSON is the same whatever the key order. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) sorted[key] = sortKeys(item);
    }
    return sorted;
  }
  return value;
}

/**
 * Pretty JSON with sorted keys and a final newline: stable across runs and readable in a diff.
 * `firstKeys` puts those top-level keys first, in that order (the rest follow sorted).
 */
export function stableStringify(value: unknown, firstKeys: string[] = []): string {
  const sorted = sortKeys(value);
  if (firstKeys.length > 0 && sorted !== null && typeof sorted === "object" && !Array.isArray(sorted)) {
    const record = sorted as Record<string, unknown>;
    const ordered: Record<string, unknown> = {};
    for (const key of firstKeys) if (key in record) ordered[key] = record[key];
    for (const key of Object.keys(record)) if (!(key in ordered)) ordered[key] = record[key];
    return `${JSON.stringify(ordered, null, 2)}\n`;
  }
  return `${JSON.stringify(sorted, null, 2)}\n`;
}

/** Compact JSON with sorted keys: a canonical form for hashing and comparing. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

/** The first `length` hex digits of the SHA-256 of `value`'s canonical JSON. */
export function stableHash(value: unknown, length = 8): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, length);
}
