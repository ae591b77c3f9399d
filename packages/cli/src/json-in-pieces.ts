/**
 * The text of `JSON.stringify(value, null, indent)` (compact when `indent` is 0), in pieces of about
 * `chunkSize` characters: no one string holds the whole text, so the report of a run of a million
 * lines, whose JSON outgrows the longest string V8 can make, can still be printed, and a writer can
 * wait for its reader between pieces. Leaves (strings, numbers, values with toJSON) are stringified
 * one at a time.
 */
export function* jsonPieces(
  value: unknown,
  options: { indent?: 0 | 2; chunkSize?: number } = {},
): Generator<string> {
  const indent = options.indent ?? 2;
  const chunkSize = options.chunkSize ?? 64 * 1024;
  const pretty = indent > 0;
  const step = pretty ? "  " : "";
  const newline = pretty ? "\n" : "";
  const colon = pretty ? ": " : ":";
  const stringify = (node: unknown, pad: string) => {
    const text = JSON.stringify(node, null, pretty ? indent : undefined) ?? "null";
    return pretty && pad ? text.replaceAll("\n", `\n${pad}`) : text;
  };
  // The pieces of the next write, joined once (a string grown by += is a tree of pieces that
  // every reader of it flattens again).
  let parts: string[] = [];
  let size = 0;
  const ready: string[] = [];
  const out = (text: string) => {
    parts.push(text);
    size += text.length;
    if (size >= chunkSize) {
      ready.push(parts.join(""));
      parts = [];
      size = 0;
    }
  };
  // A subtree of at most this many characters is stringified at once: walking every node of a large
  // report one at a time cost more than grading it.
  const smallChars = Math.max(64, chunkSize / 16);
  /** Arrays written already whose every item was small. */
  const smallItems = new WeakSet<unknown[]>();
  function* visit(node: unknown, pad: string): Generator<string> {
    if (fitsIn(node, { left: smallChars }, pad.length + 2)) return out(stringify(node, pad));
    if (Array.isArray(node)) {
      if (node.length === 0) return out("[]");
      out("[");
      // Runs of small items (a long run's thousands of violations) are stringified together, as
      // many as fill the piece at hand: node[batchStart] up to the item at hand.
      let batchStart = 0;
      let first = true;
      /** Writes the items from batchStart up to `end`; the length of their text. */
      const flushBatch = (end: number): number => {
        if (end <= batchStart) return 0;
        // "[\n  a,\n  b\n]" (or "[a,b]"): the items without the brackets, indented to this depth.
        const text = stringify(node.slice(batchStart, end), pad);
        out(
          `${first ? "" : ","}${newline}${pad}${pretty ? text.slice(2 + pad.length, -2 - pad.length) : text.slice(1, -1)}`,
        );
        first = false;
        batchStart = end;
        return text.length;
      };
      if (smallItems.has(node)) {
        // An array met again whose items were all small (a verdict's violations are also its
        // result's and in the results) is taken in runs without sizing its items again, as many
        // a run as made about a chunk the run before.
        let run = 1;
        while (batchStart < node.length) {
          const items = Math.min(run, node.length - batchStart);
          const chars = flushBatch(batchStart + items);
          run = Math.min(MAX_RUN, Math.max(1, Math.floor((items * chunkSize) / Math.max(1, chars))));
          yield* ready.splice(0);
        }
        return out(`${newline}${pad}]`);
      }
      let batchChars = 0;
      let allSmall = true;
      for (let index = 0; index < node.length; index++) {
        const item = node[index];
        // Sized first: a small item is batched, a large one walked.
        const budget = { left: smallChars };
        if (fitsIn(item, budget, pad.length + 2)) {
          batchChars += smallChars - budget.left;
          if (size + batchChars >= chunkSize) {
            flushBatch(index + 1);
            batchChars = 0;
          }
        } else {
          allSmall = false;
          flushBatch(index);
          batchChars = 0;
          out(`${first ? "" : ","}${newline}${pad}${step}`);
          first = false;
          batchStart = index + 1;
          yield* visit(item, `${pad}${step}`);
        }
        if (ready.length > 0) yield* ready.splice(0);
      }
      flushBatch(node.length);
      if (allSmall) smallItems.add(node);
      return out(`${newline}${pad}]`);
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
      for (const [index, [key, item]] of entries.entries()) {
        out(`${index === 0 ? "" : ","}${newline}${pad}${step}${JSON.stringify(key)}${colon}`);
        yield* visit(item, `${pad}${step}`);
        if (ready.length > 0) yield* ready.splice(0);
      }
      return out(`${newline}${pad}}`);
    }
    out(stringify(node, pad));
  }
  yield* visit(value, "");
  yield* ready.splice(0);
  if (size > 0) yield parts.join("");
}

/** The most items of an array of small ones stringified at once. */
const MAX_RUN = 1024;

/**
 * Whether `node` takes at most `budget.left` characters as indented JSON (roughly: its strings and
 * keys, and `indent` for each line), found without walking more than that.
 */
function fitsIn(node: unknown, budget: { left: number }, indent: number): boolean {
  budget.left -= indent + (typeof node === "string" ? node.length + 2 : 8);
  if (budget.left < 0) return false;
  if (node === null || typeof node !== "object") return true;
  // Walked without making an array of an object's values (a long run's report has millions).
  if (Array.isArray(node)) {
    for (const item of node) if (!fitsIn(item, budget, indent + 2)) return false;
  } else {
    for (const key in node) {
      if (Object.hasOwn(node, key) && !fitsIn((node as Record<string, unknown>)[key], budget, indent + 2))
        return false;
    }
  }
  return true;
}
