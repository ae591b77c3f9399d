/**
 * A set of strings kept as 52-bit hashes in an open-addressed Float64Array (at most 16 bytes a
 * string, off V8's heap): to remember every tool call id of a very long run. A string is added and
 * looked up by its `key` (worked out once). `has` may say true of a string never added (odds about
 * n²/2^53: once in some ten thousand runs of a million calls), never false of one added, so it suits a
 * check whose false alarm only costs a slower path.
 */
export class HashedIds {
  private slots = new Float64Array(1024);
  private count = 0;

  /** The key of `id`: two 32-bit FNV-1a-like hashes, 32 and 20 bits of them in one number from 1 to 2^52. */
  static key(id: string): number {
    let a = 0x811c9dc5;
    let b = 0x9747b28c;
    for (let i = 0; i < id.length; i++) {
      const code = id.charCodeAt(i);
      a = Math.imul(a ^ code, 0x01000193);
      b = Math.imul(b ^ code, 0x5bd1e995);
      b ^= b >>> 15;
    }
    return (a >>> 0) * 0x100000 + ((b >>> 0) & 0xfffff) + 1;
  }

  add(key: number): void {
    if (this.count * 2 >= this.slots.length) this.grow();
    if (place(this.slots, key)) this.count++;
  }

  has(key: number): boolean {
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let slot = slotOf(key, mask); ; slot = (slot + 1) & mask) {
      if (slots[slot] === key) return true;
      if (slots[slot] === 0) return false;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    for (const key of old) if (key !== 0) place(this.slots, key);
  }
}

/** Puts `key` in its slot (0 marks an empty one); false when it was there. */
function place(slots: Float64Array, key: number): boolean {
  const mask = slots.length - 1;
  for (let slot = slotOf(key, mask); ; slot = (slot + 1) & mask) {
    if (slots[slot] === key) return false;
    if (slots[slot] === 0) {
      slots[slot] = key;
      return true;
    }
  }
}

/** A key's first slot: from its 32 high bits (the first hash), as integers (`%` of a double is slow). */
function slotOf(key: number, mask: number): number {
  return ((key / 0x100000) >>> 0) & mask;
}
