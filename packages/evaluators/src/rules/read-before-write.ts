import { isFileEditTool, type ToolCallView } from "@evals/core";
import { z } from "zod";
import { defineRule } from "../define-rule.js";
import { fraction, pointerTo, RuleOptionsBaseSchema } from "../evaluator.js";
import { normalizePath } from "../paths.js";
import { outputText } from "../run-index.js";
import { describeCall, filePathOf } from "../tools.js";
import { filesRead } from "./context-loading.js";

export const READ_BEFORE_WRITE = "read-before-write";

export const ReadBeforeWriteOptionsSchema = RuleOptionsBaseSchema.extend({
  /** "agent" (default): the agent that writes must have read the file itself; "run": any agent's read counts. */
  scope: z.enum(["agent", "run"]).optional(),
  /**
   * Which Write calls need a read first: "updates" (default: those whose result says they overwrote an
   * existing file), "always" (also those whose result is unknown: denied, interrupted), "never".
   * A Write that created a new file never needs one.
   */
  writes: z.enum(["updates", "always", "never"]).optional(),
}).strict();

/**
 * read-before-write: a file is read before it is edited (Edit, MultiEdit, NotebookEdit) or
 * overwritten (Write over an existing file). A read is a Read call or cat/head/tail of the file in
 * Bash; a file the agent wrote itself earlier counts as known. Paths are compared after resolving them
 * against the run's cwd.
 */
export const readBeforeWriteRule = defineRule({
  id: READ_BEFORE_WRITE,
  summary: "A file is read before it is edited or overwritten.",
  options: ReadBeforeWriteOptionsSchema,
  visit(options, { index, evidence, violate }) {
    const scope = options.scope ?? "agent";
    const writes = options.writes ?? "updates";
    /** scope (the agent, or "*") -> normalized path -> the call that made the file known. */
    const known = new Map<string, Map<string, ToolCallView>>();
    const knownIn = (call: ToolCallView) => {
      const scoped = scope === "agent" ? call.agent : "*";
      let paths = known.get(scoped);
      if (paths === undefined) {
        paths = new Map();
        known.set(scoped, paths);
      }
      return paths;
    };
    let checked = 0;
    let ok = 0;

    const visitCall = (call: ToolCallView): void => {
      const read = filesRead(call);
      const isEdit = isFileEditTool(call.name);
      const isWrite = isEdit || call.name === "Write";
      // Most calls neither read nor write a file.
      if (read.length === 0 && !isWrite) return;
      const paths = knownIn(call);
      for (const path of read) paths.set(normalizePath(path, index.cwd), call);
      if (!isWrite) return;
      const path = filePathOf(call);
      if (!path) return;
      const normalized = normalizePath(path, index.cwd);
      const before = paths.get(normalized);
      if (call.status === "ok") paths.set(normalized, call);
      if (!isEdit) {
        const outcome = writeOutcome(call);
        if (writes === "never" || outcome === "create") return;
        if (outcome === "unknown" && writes === "updates") {
          if (!before) {
            evidence.add(() => ({
              type: "unverified",
              description: `${describeCall(call)}: not checked (no result says whether it created or overwrote the file)`,
              pointer: pointerTo(call),
            }));
          }
          return;
        }
      }
      checked++;
      if (before) {
        ok++;
        evidence.add(() => ({
          type: "read-first",
          description: `${describeCall(call)} after ${describeCall(before)} (event ${before.index})`,
          pointer: pointerTo(call),
        }));
        return;
      }
      const type = isEdit ? "edit-without-read" : "overwrite-without-read";
      violate(
        type,
        "error",
        `${isEdit ? `${call.name} of` : "Write over"} ${path} without reading it first${
          scope === "agent" && call.agent !== "main" ? ` (agent ${call.agent})` : ""
        }`,
        pointerTo(call),
        { path: normalizePath(path, index.cwd), status: call.status },
      );
    };
    return {
      call: visitCall,
      end: () => ({ score: fraction(ok, checked), metadata: { checkedWrites: checked, readFirst: ok } }),
    };
  },
});

/** readBeforeWrite as a function: `readBeforeWriteRule.check`. */
export const readBeforeWrite = readBeforeWriteRule.check;

/** Whether a Write created a file or overwrote one, from its result (hook response or result text). */
export function writeOutcome(call: ToolCallView): "create" | "update" | "unknown" {
  const output = call.result?.output;
  if (output && typeof output === "object" && !Array.isArray(output)) {
    const type = (output as Record<string, unknown>).type;
    if (type === "create" || type === "update") return type;
  }
  const text = outputText(output);
  if (/File created successfully/i.test(text)) return "create";
  if (/has been (updated|overwritten)/i.test(text)) return "update";
  return "unknown";
}
