// The exit-cleanup helper lives in @evals/core (one for every package); re-exported for compatibility.
export { pendingExitCleanups, registerExitCleanup } from "@evals/core";
