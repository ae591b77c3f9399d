import type { RunEvent } from "@evals/core";

/**
 * A time (epoch ms) for every event of a run that ran between `start` and `end`: its own timestamp
 * when it has one (kept in order and inside the window), else spread evenly between the nearest
 * known times around it. Stream runs often carry no timestamps; the order is what matters.
 */
export function eventTimes(events: readonly RunEvent[], start: number, end: number): number[] {
  const known: (number | undefined)[] = [];
  let floor = start;
  for (const event of events) {
    const parsed = event.timestamp ? Date.parse(event.timestamp) : Number.NaN;
    if (Number.isFinite(parsed) && parsed >= floor && parsed <= end) {
      known.push(parsed);
      floor = parsed;
    } else known.push(undefined);
  }
  const times: number[] = [];
  let previousIndex = -1;
  let previousTime = start;
  for (let index = 0; index < events.length; index++) {
    const own = known[index];
    if (own !== undefined) {
      times.push(own);
      previousIndex = index;
      previousTime = own;
      continue;
    }
    let nextIndex = index + 1;
    while (nextIndex < events.length && known[nextIndex] === undefined) nextIndex++;
    const nextTime = known[nextIndex] ?? end;
    const step = (nextTime - previousTime) / (nextIndex - previousIndex);
    times.push(previousTime + step * (index - previousIndex));
  }
  return times;
}
