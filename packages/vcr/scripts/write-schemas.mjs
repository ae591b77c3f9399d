// Writes the JSON Schemas of @evals/vcr's file formats to schemas/ (run after build).
import { writeJsonSchemaFiles } from "@evals/core";
import { vcrFileFormats, vcrJsonSchemaFor } from "../dist/index.js";

writeJsonSchemaFiles(
  new URL("../schemas/", import.meta.url),
  Object.fromEntries(Object.keys(vcrFileFormats).map((name) => [name, vcrJsonSchemaFor(name)])),
);
