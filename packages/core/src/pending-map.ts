/**
 * A Map for entries that come and go all the time (calls waiting for their results while a long run
 * is read), that leaves no garbage in V8's old generation. A Map that has lived long enough to be
 * in the old generation allocates every new hash table there when it grows or rehashes, and a Map
 * whose entries are added and deleted rehashes all the time: reading a 1M-line run left some 100 MB
 * of dead tables for full collections to find. This one moves its few live entries into a new (young)
 * Map every `renewEvery` additions.
 */
export class PendingMap<K, V> {
  private map = new Map<K, V>();
  private added = 0;

  constructor(private readonly renewEvery = 1024) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): this {
    if (++this.added % this.renewEvery === 0) this.map = new Map(this.map);
    this.map.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  get size(): number {
    return this.map.size;
  }
}
