// `@evals/store/history-reader`: what `evals history` needs to answer from the history digest,
// without PGlite, pg or zod (see history-digest.ts). Everything else is in `@evals/store`.
export { formatHistory, sparkline } from "./history.js";
export {
  type DigestRun,
  type DigestVerdict,
  HISTORY_DIGEST_VERSION,
  historyDigestFile,
  historyFromDigest,
  readHistoryDigest,
} from "./history-digest.js";
export type { CaseHistory, CaseRun, HistoryQuery } from "./history-types.js";
export { describeLocation, locateStore, type StoreLocation } from "./location.js";
