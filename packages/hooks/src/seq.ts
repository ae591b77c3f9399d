/**
 * The `seq` of a captured line: microseconds since the epoch on the real-time clock, read when the
 * hook process starts (the shell hook reads the same clock with `date +%s%N`, so lines of both
 * entries sort together). Within this process it advances with the monotonic clock.
 *
 * Guarantee: if one hook call finished before another started, its seq is smaller, whichever
 * processes ran them (unless the system clock is stepped back in between); that is every pair of
 * events Claude Code fires one after another (a tool's PreToolUse hook returns before the tool runs
 * and PostToolUse fires). Concurrent hook calls get an arbitrary but consistent order, and two
 * that start within the same microsecond may share a seq (readers then keep file order).
 * Sort by it, never count with it. A safe integer until the year 2255.
 */
export function hookSeq(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}
