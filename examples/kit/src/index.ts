// What the example eval suites share. Not published: the suites are what a user would write.
export { copyFixture, FIXTURE_TIME, removeAtExit } from "./fixture.js";
export {
  exampleMode,
  RecordingMissingError,
  type ReplayedRunOptions,
  ReplayMismatchError,
  replayedRun,
} from "./replayed-run.js";
export { recordingIdentity, runOptionsOf } from "./run-options.js";
