// A tiny eval project for the reporter test: EVALS_REPORTERS picks the reporter setup.
import { defineConfig } from "vitest/config";

const ours = ["@evals/logging/reporter", { outputDir: process.env.EVALS_OUT, suite: "checkout evals" }];
export default defineConfig({
  test: {
    include: ["*.eval-fixture.ts"],
    pool: "threads",
    reporters: process.env.EVALS_REPORTERS === "alone" ? [ours] : ["default", ours],
  },
});
