// Writes the JSON Schemas of @evals/core's file formats to schemas/ (run after build).
import { fileFormats, jsonSchemaFor, writeJsonSchemaFiles } from "../dist/index.js";

writeJsonSchemaFiles(
  new URL("../schemas/", import.meta.url),
  Object.fromEntries(Object.keys(fileFormats).map((name) => [name, jsonSchemaFor(name)])),
);
