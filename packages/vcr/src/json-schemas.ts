import { formatJsonSchema } from "@evals/core";
import { CassetteSchema } from "./cassette-file.js";
import { RecordingSchema } from "./recording.js";

/** The file formats of @evals/vcr, by name, as zod schemas. */
export const vcrFileFormats = {
  cassette: CassetteSchema,
  recording: RecordingSchema,
} as const;
export type VcrFileFormatName = keyof typeof vcrFileFormats;

/** A JSON Schema (draft 2020-12) of a cassette or a recording, generated from its zod schema. */
export function vcrJsonSchemaFor(name: VcrFileFormatName): Record<string, unknown> {
  return formatJsonSchema("vcr", name, vcrFileFormats[name]);
}
