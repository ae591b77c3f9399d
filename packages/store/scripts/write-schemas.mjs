// Writes the JSON Schemas of the history digest's lines to schemas/ (run after build).
import { writeJsonSchemaFiles } from "@evals/core";
import { historyDigestJsonSchemas } from "../dist/index.js";

writeJsonSchemaFiles(new URL("../schemas/", import.meta.url), historyDigestJsonSchemas());
