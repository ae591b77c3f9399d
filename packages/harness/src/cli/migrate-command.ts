import { migrateCommand } from "@evals/evaluators";
import type { Command } from "./command.js";

/** `evals migrate`: @evals/evaluators' conversion of OpenAgentsControl cases (its help is MIGRATE_USAGE). */
export const migrate: Command = {
  name: "migrate",
  summary: "convert OpenAgentsControl YAML cases into case files, reporting every field it could not keep",
  run: (args, io) => migrateCommand(args, io),
};
