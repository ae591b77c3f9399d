import { fileURLToPath } from "node:url";
import type { scripted } from "@evals/vcr";
// @ts-expect-error: a plain ES module without types, so that `evals --model` can load it too
import model from "../fixtures/notes-variants/models.mjs";

/**
 * A with/without suite: `notes.yaml` (one case that passes only when the agent lists the notes with
 * Bash first), `variants.yaml` (`plain`, the baseline, and `house-rule`, which appends a house rule
 * to the system prompt), the project `fixture/`, and `models.mjs`, its scripted model.
 */
export const notesVariantsDir = fileURLToPath(new URL("../fixtures/notes-variants/", import.meta.url));

/** The suite's scripted model (models.mjs): it follows the house rule only when its system prompt has one. */
export const houseRuleModel: Parameters<typeof scripted>[0] = model;
