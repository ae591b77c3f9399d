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
  let buffer = "";
  const out = (text: string) => {
    buffer += text;
    if (buffer.length >= chunkSize) {
      write(buffer);
      buffer = "";
    }
  };
  const visit = (node: unknown, pad: string) => {
    if (Array.isArray(node)) {
      if (node.length === 0) return out("[]");
      out("[");
      node.forEach((item, index) => {
        out(`${index === 0 ? "" : ","}\n${pad}  `);
        // As JSON.stringify: what has no JSON form is null inside an array.
        if (item === undefined || typeof item === "function" || typeof item === "symbol") out("null");
        else visit(item, `${pad}  `);
      });
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
  if (buffer.length > 0) write(buffer);
}
