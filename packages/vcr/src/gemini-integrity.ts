import { type GeminiFunctionCall, type GeminiPart, geminiAnswerParts } from "./gemini-api.js";
import { type RecordedInteraction, type Recording, recordedRequest, recordedResponse } from "./recording.js";
import { canonicalJson } from "./stable-json.js";
import { isGeminiModelPath } from "./wire.js";

/**
 * The Gemini half of a recording's integrity check (see integrity.ts): every recorded answer that
 * calls functions, and whose conversation goes on in a later recorded request, must be echoed there
 * as a model turn with the same calls (same names, same arguments, same ids when the answer gave
 * them). The last answer of a conversation is covered by `responses_sha256`.
 */

type Content = { role?: string; parts?: GeminiPart[] };

function contentsOf(recording: Recording, interaction: RecordedInteraction): Content[] {
  const body = recordedRequest(recording, interaction).body as { contents?: unknown } | undefined;
  return Array.isArray(body?.contents) ? (body.contents as Content[]) : [];
}

function callsOf(parts: readonly GeminiPart[] | undefined): GeminiFunctionCall[] {
  return (parts ?? []).flatMap((part) => (part.functionCall ? [part.functionCall] : []));
}

/** Whether a model turn's calls are the answer's: same names and arguments, and the answer's ids. */
function echoes(echo: GeminiFunctionCall[], answer: GeminiFunctionCall[]): boolean {
  if (echo.length !== answer.length) return false;
  return answer.every((call, position) => {
    const other = echo[position]!;
    if (other.name !== call.name) return false;
    if (call.id !== undefined && other.id !== call.id) return false;
    const args = call.args ?? {};
    return Object.keys(args).every((key) => canonicalJson(args[key]) === canonicalJson(other.args?.[key]));
  });
}

/** Why the Gemini answers of `recording` must not be replayed, or undefined when they are consistent. */
export function geminiIntegrityProblem(recording: Recording): string | undefined {
  for (const [position, interaction] of recording.interactions.entries()) {
    if (!isGeminiModelPath(interaction.request.path)) continue;
    const calls = callsOf(geminiAnswerParts(recordedResponse(interaction)));
    if (calls.length === 0) continue;
    const contents = contentsOf(recording, interaction);
    const first = canonicalJson(contents[0] ?? null);
    const turns: GeminiFunctionCall[][] = [];
    let continued = false;
    for (const later of recording.interactions.slice(position + 1)) {
      const laterContents = contentsOf(recording, later);
      if (laterContents.length <= contents.length || canonicalJson(laterContents[0] ?? null) !== first)
        continue;
      continued = true;
      for (const content of laterContents) if (content.role === "model") turns.push(callsOf(content.parts));
    }
    if (continued && !turns.some((turn) => echoes(turn, calls))) {
      const named = calls.map((call) => `${call.name} ${JSON.stringify(call.args)}`);
      return `the recorded answer of interaction #${interaction.index} calls ${named.join(", ")}, but the later recorded requests of its conversation show the model sending something else (the answer was edited)`;
    }
  }
  return undefined;
}
