/**
 * The `seq` of a captured line: microseconds on the host's monotonic clock (CLOCK_MONOTONIC on
 * Linux, shared by every process of the machine), read when the hook process starts.
 *
 * Guarantee: if one hook call finished before another started, its seq is smaller, whichever
 * processes ran them; that is every pair of events Claude Code fires one after another (a tool's
 * PreToolUse hook returns before the tool runs and PostToolUse fires). Concurrent hook calls get
 * an arbitrary but consistent order, and two that start within the same microsecond may share a
 * seq (readers then keep file order). Monotonic, with gaps: sort by it, never count with it.
 * A safe integer for 285 years of uptime; it restarts at boot, and a run never spans one.
 */
export function hookSeq(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
