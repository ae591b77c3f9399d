/** Disjoint spans kept whole; older ones are folded into a running total. */
const KEPT_SPANS = 64;

/**
 * The length of the union of time intervals added one by one (overlapping or touching ones merged),
 * in memory that does not grow with their number: the last KEPT_SPANS disjoint spans are kept, older
 * ones only added up (oldest first, so the sum rounds as a sort-and-sweep over every interval would).
 * Exact unless an interval starts before every kept span: only its time after them counts then (calls
 * visited in order start in order, give or take the jitter of parallel agents).
 */
export class BusyTime {
  /** Sorted by start; neither overlapping nor touching. Those before `head` are folded already. */
  private readonly spans: [number, number][] = [];
  /** Folded spans are dropped from `spans` KEPT_SPANS at a time (a shift for each costs more). */
  private head = 0;
  private folded = 0;
  private foldedEnd = Number.NEGATIVE_INFINITY;
  private added = 0;

  add(start: number, end: number): void {
    this.added++;
    if (start <= this.foldedEnd) {
      if (end <= this.foldedEnd) return;
      start = this.foldedEnd;
    }
    const spans = this.spans;
    const last = spans.length > this.head ? spans[spans.length - 1] : undefined;
    if (last === undefined || start > last[1]) spans.push([start, end]);
    else if (start >= last[0]) last[1] = Math.max(last[1], end);
    else this.insert(start, end);
    if (spans.length - this.head > KEPT_SPANS) {
      const [oldStart, oldEnd] = spans[this.head++] as [number, number];
      this.folded += oldEnd - oldStart;
      this.foldedEnd = oldEnd;
      if (this.head >= KEPT_SPANS) {
        spans.splice(0, this.head);
        this.head = 0;
      }
    }
  }

  /** The union's length, undefined when no interval was added. */
  total(): number | undefined {
    if (this.added === 0) return undefined;
    let total = this.folded;
    for (let at = this.head; at < this.spans.length; at++) {
      const [start, end] = this.spans[at] as [number, number];
      total += end - start;
    }
    return total;
  }

  /** Merges an interval that starts before the last span into the spans it overlaps or touches. */
  private insert(start: number, end: number): void {
    const spans = this.spans;
    let at = spans.length;
    while (at > this.head && (spans[at - 1] as [number, number])[0] > start) at--;
    let from = at;
    const before = at > this.head ? spans[at - 1] : undefined;
    if (before !== undefined && before[1] >= start) {
      from = at - 1;
      start = before[0];
      end = Math.max(before[1], end);
    }
    let to = at;
    while (to < spans.length && (spans[to] as [number, number])[0] <= end) {
      end = Math.max(end, (spans[to] as [number, number])[1]);
      to++;
    }
    spans.splice(from, to - from, [start, end]);
  }
}
