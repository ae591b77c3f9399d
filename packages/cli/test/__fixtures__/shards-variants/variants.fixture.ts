import { defineCase } from "@evals/evaluators";
import { describeCases } from "@evals/harness/vitest";
import { run } from "../shards/shared.js";

// Nine cases under two variants; every trial's run is the same real Claude Code run (the point is
// which shard runs what, not what the agent does). The comparison goes where describeCases puts it
// by default: results/variants/notes-variants/, under a shard results/shard-<i>-of-<n>/variants/….
describeCases("notes variants", {
  cases: Array.from({ length: 9 }, (_, n) =>
    defineCase({ id: `case-${n + 1}`, prompt: "Do the five steps in order", behavior: { mustUseTools: ["Bash"] } }),
  ),
  variants: [{ name: "plain", mustPass: false }, { name: "house-rule" }],
  task: () => run,
  scorers: [], // only the outcome is judged: the run succeeded
});
