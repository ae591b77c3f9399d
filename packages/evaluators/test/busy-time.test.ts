import { describe, expect, it } from "vitest";
import { BusyTime } from "../src/busy-time.js";

function busyTime(intervals: [number, number][]): number | undefined {
  const busy = new BusyTime();
  for (const [start, end] of intervals) busy.add(start, end);
  return busy.total();
}

describe("BusyTime", () => {
  it("is undefined with no interval, and merges overlapping and touching intervals", () => {
    expect(busyTime([])).toBeUndefined();
    expect(busyTime([[0, 0]])).toBe(0);
    expect(
      busyTime([
        [0, 10],
        [5, 12],
        [12, 20],
        [30, 31],
      ]),
    ).toBe(21);
  });

  it("merges an interval that starts before the last span into every span it reaches", () => {
    // [5, 12] joins [10, 20]; [19, 31] then bridges it to [30, 40]; [45, 46] lands in the gap after.
    expect(
      busyTime([
        [10, 20],
        [30, 40],
        [50, 60],
        [5, 12],
        [19, 31],
        [45, 46],
        [1, 2],
      ]),
    ).toBe(35 + 1 + 10 + 1);
  });

  it("folds old spans into the total as a sweep over the sorted intervals adds them", () => {
    const intervals: [number, number][] = [];
    for (let i = 0; i < 1000; i++) intervals.push([i * 1.1, i * 1.1 + 0.3]);
    let sweep = 0;
    for (const [start, end] of intervals) sweep += end - start;
    expect(busyTime(intervals)).toBe(sweep);
  });

  it("merges into the last 64 spans and clips at the folded ones, however many were folded", () => {
    // n disjoint spans of 1; then one reaching back to the oldest kept span, one before every kept
    // span (it counts for nothing), one bridging ten spans near the end.
    const run = (n: number) => {
      const intervals: [number, number][] = [];
      for (let i = 0; i < n; i++) intervals.push([10 * i, 10 * i + 1]);
      intervals.push([10 * (n - 64) - 5, 10 * (n - 64) + 15], [5, 100], [10 * (n - 30) + 3, 10 * (n - 20)]);
      return busyTime(intervals);
    };
    expect(run(100)).toBe(100 + 18 + 88);
    expect(run(200)).toBe(200 + 18 + 88);
    expect(run(1000)).toBe(1000 + 18 + 88);
  });
});
