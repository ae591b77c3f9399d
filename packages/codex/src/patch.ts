/**
 * Codex's apply_patch text (`*** Begin Patch ... *** End Patch`) read into one operation per file,
 * so that each becomes the shared tool it is: an added file a Write, an updated one an Edit.
 */

export type PatchOperation =
  | { kind: "add"; path: string; content: string }
  | { kind: "update"; path: string; old_string: string; new_string: string; move_to?: string }
  | { kind: "delete"; path: string };

const HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/;

/** The operations of a patch, in order; text that is no patch gives none. */
export function parsePatch(patch: string): PatchOperation[] {
  const operations: PatchOperation[] = [];
  let current: { kind: string; path: string; lines: string[]; move_to?: string } | undefined;
  const flush = () => {
    if (!current) return;
    const { kind, path, lines } = current;
    if (kind === "Add") {
      operations.push({
        kind: "add",
        path,
        content: lines.map((line) => line.slice(1)).join("\n") + (lines.length > 0 ? "\n" : ""),
      });
    } else if (kind === "Delete") {
      operations.push({ kind: "delete", path });
    } else {
      const old_string: string[] = [];
      const new_string: string[] = [];
      for (const line of lines) {
        if (line.startsWith("@@") || line === "*** End of File") continue;
        const text = line.slice(1);
        if (line.startsWith("-")) old_string.push(text);
        else if (line.startsWith("+")) new_string.push(text);
        else {
          old_string.push(text);
          new_string.push(text);
        }
      }
      operations.push({
        kind: "update",
        path,
        old_string: old_string.join("\n"),
        new_string: new_string.join("\n"),
        ...(current.move_to ? { move_to: current.move_to } : {}),
      });
    }
    current = undefined;
  };
  for (const line of patch.split("\n")) {
    const header = HEADER.exec(line);
    if (header) {
      flush();
      current = { kind: header[1]!, path: header[2]!.trim(), lines: [] };
    } else if (line.startsWith("*** Move to: ") && current) {
      current.move_to = line.slice("*** Move to: ".length).trim();
    } else if (line === "*** Begin Patch" || line === "*** End Patch") {
      flush();
    } else if (current) {
      current.lines.push(line);
    }
  }
  flush();
  return operations;
}
