import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** Where a generated JSON Schema says it comes from. */
export interface JsonSchemaOptions {
  /** `$id`, e.g. `urn:evals:vcr:cassette`. */
  id?: string;
  title?: string;
  /**
   * Which side of the zod schema: "input" (default), what a file may hold (defaults optional);
   * "output", what parsing returns.
   */
  io?: "input" | "output";
}

/**
 * The JSON Schema (draft 2020-12) of a zod schema, with its `$id` and title first: the one way every
 * package turns its file formats into the schemas it ships. Types JSON Schema cannot say become `{}`.
 */
export function jsonSchemaOf(schema: z.ZodType, options: JsonSchemaOptions = {}): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, { io: options.io ?? "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return {
    ...(options.id !== undefined ? { $id: options.id } : {}),
    ...(options.title !== undefined ? { title: options.title } : {}),
    ...generated,
  };
}

/**
 * The JSON Schema of one of a package's file formats, as `urn:evals:<scope>:<name>` titled by its
 * name (`formatJsonSchema("vcr", "cassette", CassetteSchema)`).
 */
export function formatJsonSchema(scope: string, name: string, schema: z.ZodType): Record<string, unknown> {
  return jsonSchemaOf(schema, { id: `urn:evals:${scope}:${name}`, title: name });
}

/**
 * Writes JSON Schemas as `<name>.json` files into a folder (a package's `schemas/`, shipped and
 * compared with the generated ones by its tests). For the packages' scripts/write-schemas.mjs.
 */
export function writeJsonSchemaFiles(folder: URL | string, schemas: Record<string, unknown>): void {
  const dir = typeof folder === "string" ? folder : fileURLToPath(folder);
  mkdirSync(dir, { recursive: true });
  for (const [name, schema] of Object.entries(schemas)) {
    writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(schema, null, 2)}\n`);
  }
}
