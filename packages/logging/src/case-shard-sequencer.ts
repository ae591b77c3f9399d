import { BaseSequencer, type TestSpecification } from "vitest/node";
import { formatShard, SHARD_PROVIDE_KEY } from "./shard.js";

/**
 * A vitest sequencer that makes `vitest --shard=i/n` split cases rather than files: every file
 * runs on every shard, and the shard is handed to the test files (`inject("evalsShard")`), where
 * @evals/harness's describeEval runs only its share of each suite's cases, as with EVALS_SHARD.
 * @evals/logging's reporter then writes a shard's results for `evals merge`.
 *
 * ```ts
 * // vitest.eval.config.ts
 * import { CaseShardSequencer } from "@evals/logging/reporter";
 * export default defineConfig({
 *   test: { sequence: { sequencer: CaseShardSequencer }, passWithNoTests: true, ... },
 * });
 * ```
 *
 * (vitest refuses `--shard` with more shards than test files unless `passWithNoTests` is set.)
 */
export class CaseShardSequencer extends BaseSequencer {
  /** How @evals/logging's reporter knows that `--shard` shards cases here. */
  static readonly casesNotFiles = true;

  override async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
    const shard = this.ctx.config.shard;
    if (shard) {
      for (const project of new Set(files.map((file) => file.project))) {
        // Typed by @evals/harness, which declares the key in vitest's ProvidedContext.
        project.provide(SHARD_PROVIDE_KEY as never, formatShard(shard) as never);
      }
    }
    return files;
  }
}
