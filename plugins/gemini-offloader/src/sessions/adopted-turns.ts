import { existsSync } from "node:fs";
import { join } from "node:path";
import { type GeminiSession, parseSessionFile } from "../gemini/session-files.js";
import { writeTextFileAtomic } from "../store/json-file.js";
import type { ProjectLayout } from "../store/locations.js";

/**
 * Saves the answers of a session made outside the plugin as the plugin saves its own turns
 * (`sessions/<session id>/turn-NNN.md`, NNN the turn's number), so that `memory index-offload` can
 * store them and `sync` sees them. Turn files already there are kept. Returns how many were written.
 */
export function saveSessionAnswers(project: ProjectLayout, session: GeminiSession): number {
  const parsed = parseSessionFile(session.file);
  if (!parsed) return 0;
  const answers = new Map<number, string[]>();
  let turn = 0;
  for (const message of parsed.messages) {
    if (message.type === "user") turn += 1;
    else if (message.type === "gemini" && turn > 0 && message.text.trim()) {
      answers.set(turn, [...(answers.get(turn) ?? []), message.text]);
    }
  }
  let written = 0;
  for (const [number, texts] of answers) {
    const file = join(
      project.sessionResponsesDir,
      session.sessionId,
      `turn-${String(number).padStart(3, "0")}.md`,
    );
    if (existsSync(file)) continue;
    writeTextFileAtomic(file, texts.join("\n\n"));
    written += 1;
  }
  return written;
}
