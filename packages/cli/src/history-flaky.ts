import { findFlakyCases, formatFlaky, type Store } from "@evals/store";
import type { CommandIo } from "./command.js";
import { EXIT } from "./exit-codes.js";

export interface FlakyArgs {
  last: number;
  positionals: string[];
  since: Date | undefined;
  json: boolean | undefined;
}

/** `evals history --flaky`: the flaky cases of the database, with their evidence. */
export async function showFlaky(store: Store, args: FlakyArgs, io: CommandIo): Promise<number> {
  const flaky = await findFlakyCases(store, {
    last: args.last,
    ...(args.positionals.length > 0 ? { cases: args.positionals } : {}),
    ...(args.since ? { since: args.since } : {}),
  });
  io.stdout.write(args.json ? `${JSON.stringify({ flaky }, null, 2)}\n` : formatFlaky(flaky));
  return EXIT.passed;
}
