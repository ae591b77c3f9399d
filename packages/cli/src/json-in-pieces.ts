/**
 * Writes `value` as `JSON.stringify(value, null, 2)` would, but in pieces of about `chunkSize`
 * characters: no one string holds the whole text, so the report of a run of a million lines, whose
 * JSON outgrows the longest string V8 can make, can still be printed. Leaves (strings, numbers,
 * values with toJSON) are stringified one at a time.
 */
export function writeJsonInPieces(
  value: unknown,
  write: (piece: string) => void,
  chunkSize = 64 * 1024,
): void {
  // The pieces of the next write, joined once (a string grown by += is a tree of pieces that
  // every reader of it flattens again).
  let parts: string[] = [];
  let size = 0;
  const flush = () => {
    write(parts.join(""));
    parts = [];
    size = 0;
  };
  const out = (text: string) => {
    parts.push(text);
    size += text.length;
    if (size >= chunkSize) flush();
  };
  // A subtree of at most this many characters is stringified at once: walking every node of a large
  // report one at a time cost more than grading it.
  const smallChars = Math.max(64, chunkSize / 16);
  const visit = (node: unknown, pad: string) => {
    if (fitsIn(node, { left: smallChars }, pad.length + 2)) {
      return out(JSON.stringify(node, null, 2)?.replaceAll("\n", `\n${pad}`) ?? "null");
    }
    if (Array.isArray(node)) {
      if (node.length === 0) return out("[]");
      out("[");
      // Runs of small items (a long run's thousands of violations) are stringified together.
      let batch: unknown[] = [];
      let batchChars = 0;
      let first = true;
      const flushBatch = () => {
        if (batch.length === 0) return;
        // "[\n  a,\n  b\n]": the items without the brackets, each line indented to this depth.
        const text = JSON.stringify(batch, null, 2);
        out(`${first ? "" : ","}\n${pad}${text.slice(2, -2).replaceAll("\n", `\n${pad}`)}`);
        first = false;
        batch = [];
        batchChars = 0;
      };
      for (const item of node) {
        const budget = { left: smallChars };
        if (fitsIn(item, budget, pad.length + 2)) {
          batch.push(item);
          batchChars += smallChars - budget.left;
          if (batchChars >= smallChars) flushBatch();
          continue;
        }
        flushBatch();
        out(`${first ? "" : ","}\n${pad}  `);
        first = false;
        visit(item, `${pad}  `);
      }
      flushBatch();
      return out(`\n${pad}]`);
    }
    if (
      node !== null &&
      typeof node === "object" &&
      typeof (node as { toJSON?: unknown }).toJSON !== "function"
    ) {
      const entries = Object.entries(node).filter(
        ([, item]) => item !== undefined && typeof item !== "function" && typeof item !== "symbol",
      );
      if (entries.length === 0) return out("{}");
      out("{");
      entries.forEach(([key, item], index) => {
        out(`${index === 0 ? "" : ","}\n${pad}  ${JSON.stringify(key)}: `);
        visit(item, `${pad}  `);
      });
      return out(`\n${pad}}`);
    }
    out(JSON.stringify(node, null, 2)?.replaceAll("\n", `\n${pad}`) ?? "null");
  };
  visit(value, "");
  if (size > 0) flush();
}

/**
 * Whether `node` takes at most `budget.left` characters as indented JSON (roughly: its strings and
 * keys, and `indent` for each line), found without walking more than that.
 */
function fitsIn(node: unknown, budget: { left: number }, indent: number): boolean {
  budget.left -= indent + (typeof node === "string" ? node.length + 2 : 8);
  if (budget.left < 0) return false;
  if (node === null || typeof node !== "object") return true;
  const items = Array.isArray(node) ? node : Object.values(node);
  for (const item of items) if (!fitsIn(item, budget, indent + 2)) return false;
  return true;
}
