/**
 * A set of strings kept as 52-bit hashes in an open-addressed Float64Array (at most 16 bytes a
 * string, off V8's heap): to remember every tool call id of a very long run. `has` may say true of a
 * string never added (odds about n²/2^53: once in some ten thousand runs of a million calls), never
 * false of one added, so it suits a check whose false alarm only costs a slower path.
 */
export class HashedIds {
  private slots = new Float64Array(1024);
  private count = 0;

  add(id: string): void {
    if (this.count * 2 >= this.slots.length) this.grow();
    if (place(this.slots, hash(id))) this.count++;
  }

  has(id: string): boolean {
    const slots = this.slots;
    const value = hash(id);
    const mask = slots.length - 1;
    for (let slot = value % slots.length; ; slot = (slot + 1) & mask) {
      if (slots[slot] === value) return true;
      if (slots[slot] === 0) return false;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    for (const value of old) if (value !== 0) place(this.slots, value);
  }
}

/** Puts `value` in its slot (0 marks an empty one); false when it was there. */
function place(slots: Float64Array, value: number): boolean {
  const mask = slots.length - 1;
  for (let slot = value % slots.length; ; slot = (slot + 1) & mask) {
    if (slots[slot] === value) return false;
    if (slots[slot] === 0) {
      slots[slot] = value;
      return true;
    }
  }
}

/** Two 32-bit FNV-1a-like hashes of `text`, 32 and 20 bits of them in one number from 1 to 2^52. */
function hash(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 0x100000 + ((b >>> 0) & 0xfffff) + 1;
}
