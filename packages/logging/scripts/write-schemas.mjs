// Writes the JSON Schemas of @evals/logging's formats to schemas/ (run after build).
import { writeJsonSchemaFiles } from "@evals/core";
import { loggingFormats, loggingJsonSchema } from "../dist/index.js";

writeJsonSchemaFiles(
  new URL("../schemas/", import.meta.url),
  Object.fromEntries(Object.keys(loggingFormats).map((name) => [name, loggingJsonSchema(name)])),
);
