import { defineCase } from "@evals/evaluators";
import { describeCases } from "@evals/harness/vitest";
import { run } from "../shards/shared.js";

// Two cases under two variants: split in three shards, one shard runs none of them and writes no
// comparison for this suite.
describeCases("solo variants", {
  cases: ["first", "second"].map((id) =>
    defineCase({ id, prompt: "Do the five steps in order", behavior: { mustUseTools: ["Read"] } }),
  ),
  variants: [{ name: "plain", mustPass: false }, { name: "house-rule" }],
  task: () => run,
  scorers: [],
});
