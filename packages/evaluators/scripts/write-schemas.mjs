// Writes the JSON Schema of the case file format to schemas/case.json (run after build).
import { writeJsonSchemaFiles } from "@evals/core";
import { caseJsonSchema } from "../dist/index.js";

writeJsonSchemaFiles(new URL("../schemas/", import.meta.url), { case: caseJsonSchema() });
