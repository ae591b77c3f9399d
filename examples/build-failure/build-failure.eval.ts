import { fileURLToPath } from "node:url";
import { describeCases } from "@evals/harness";
import { agents } from "./agents.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

describeCases("build-failure", {
  cases: here("./cases/build-failure.yaml"),
  model: agents,
  cassette: { dir: here("./cassettes") },
  timeout: 120_000,
});
