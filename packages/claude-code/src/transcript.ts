import { readdirSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { CapturedEvent, HookInput } from "@evals/core";
import { z } from "zod";

/*
 * Claude Code's session transcript ($CLAUDE_CONFIG_DIR/projects/<cwd, / as ->/<session_id>.jsonl)
 * carries two facts the stream-json output lacks: the prompts the CLI submitted itself (a
 * background subagent's `<task-notification>`) and the instruction files it loaded (CLAUDE.md,
 * their @-imports, nested ones). runAgent reads them from here instead of registering the
 * UserPromptSubmit and InstructionsLoaded hooks: a hook costs the CLI a request each time it fires,
 * and a plain run then fires none. Observed on 2.1.330; lines and fields not read here are ignored.
 */

/** A prompt of the main session: the first user line of each promptId (its tool results share it). */
const UserLineSchema = z.looseObject({
  type: z.literal("user"),
  isSidechain: z.boolean().optional(),
  isMeta: z.boolean().optional(),
  promptId: z.string(),
  timestamp: z.string(),
  message: z.looseObject({
    content: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]),
  }),
});

const MemoryFileSchema = z.looseObject({
  path: z.string(),
  type: z.string().optional(),
  content: z.string().optional(),
  /** A .claude/rules file's `paths:` globs (a nested_memory of a path-glob rule). */
  globs: z.array(z.string()).optional(),
});

/** The instruction files loaded at session start (CLAUDE.md files and what they @-import), in load order. */
const InstructionsLineSchema = z.looseObject({
  type: z.literal("attachment"),
  timestamp: z.string(),
  attachment: z.looseObject({ type: z.literal("instructions"), files: z.array(MemoryFileSchema) }),
});

/**
 * A CLAUDE.md of a subdirectory, loaded when the agent first touched a file under it, or a rule of
 * .claude/rules whose `paths:` globs matched such a file (its content has the globs).
 */
const NestedMemoryLineSchema = z.looseObject({
  type: z.literal("attachment"),
  timestamp: z.string(),
  attachment: z.looseObject({
    type: z.literal("nested_memory"),
    path: z.string(),
    content: MemoryFileSchema,
  }),
});

/** Where the CLI wrote the session's transcript, or undefined when there is none. */
export function findTranscript(configDir: string, sessionId: string): string | undefined {
  const projects = join(configDir, "projects");
  let dirs: string[];
  try {
    dirs = readdirSync(projects);
  } catch {
    return undefined;
  }
  const name = `${sessionId}.jsonl`;
  for (const dir of dirs) {
    try {
      if (readdirSync(join(projects, dir)).includes(name)) return join(projects, dir, name);
    } catch {
      // Not a folder.
    }
  }
  return undefined;
}

/**
 * The UserPromptSubmit and InstructionsLoaded events the hooks would have captured, as captured
 * lines (their schema, captured_at = the transcript's time), in the transcript's order. Throws when
 * the file cannot be read; a line that is not JSON is skipped (the CLI may be cut off mid-write).
 */
export function transcriptEvents(
  file: string,
  session: { sessionId: string; cwd: string; runId: string },
): CapturedEvent[] {
  const common = { session_id: session.sessionId, transcript_path: file, cwd: session.cwd };
  const events: CapturedEvent[] = [];
  const push = (timestamp: string, event: Record<string, unknown>) =>
    events.push({
      version: 1,
      captured_at: timestamp,
      run_id: session.runId,
      seq: events.length,
      event: { ...common, ...event } as HookInput,
    });
  const prompted = new Set<string>();
  for (const text of readFileSync(file, "utf8").split("\n")) {
    // The API request lines are most of the file and of no interest: skip them unparsed.
    if (text === "" || text.startsWith('{"type":"api-request')) continue;
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      continue;
    }
    const user = UserLineSchema.safeParse(line);
    if (user.success) {
      const { data } = user;
      if (data.isSidechain || data.isMeta || prompted.has(data.promptId)) continue;
      prompted.add(data.promptId);
      const prompt = promptText(data.message.content);
      if (prompt !== undefined) push(data.timestamp, { hook_event_name: "UserPromptSubmit", prompt });
      continue;
    }
    const loaded = InstructionsLineSchema.safeParse(line);
    if (loaded.success) {
      const { files } = loaded.data.attachment;
      files.forEach((memory, index) => {
        const parent = files.slice(0, index).find((earlier) => importsFile(earlier, memory.path));
        push(loaded.data.timestamp, {
          hook_event_name: "InstructionsLoaded",
          file_path: memory.path,
          ...(memory.type ? { memory_type: memory.type } : {}),
          load_reason: parent ? "include" : "session_start",
          ...(parent ? { parent_file_path: parent.path } : {}),
        });
      });
      continue;
    }
    const nested = NestedMemoryLineSchema.safeParse(line);
    if (nested.success) {
      const { attachment } = nested.data;
      const globs = attachment.content.globs ?? [];
      push(nested.data.timestamp, {
        hook_event_name: "InstructionsLoaded",
        file_path: attachment.path,
        ...(attachment.content.type ? { memory_type: attachment.content.type } : {}),
        load_reason: globs.length > 0 ? "path_glob_match" : "nested_traversal",
        ...(globs.length > 0 ? { globs } : {}),
      });
    }
  }
  return events;
}

/** A prompt's text; undefined for a line of tool results (no text of its own). */
function promptText(content: z.infer<typeof UserLineSchema>["message"]["content"]): string | undefined {
  if (typeof content === "string") return content;
  const texts = content.filter((block) => block.type === "text" && block.text !== undefined);
  return texts.length > 0 ? texts.map((block) => block.text).join("\n") : undefined;
}

/** Whether an instruction file @-imports `path` (relative to its folder, or absolute). */
function importsFile(file: z.infer<typeof MemoryFileSchema>, path: string): boolean {
  for (const match of (file.content ?? "").matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const target = match[1]!;
    if ((isAbsolute(target) ? target : resolve(dirname(file.path), target)) === path) return true;
  }
  return false;
}
