/** The value of a key, created on first use. */
export function getOrCreate<K, V>(
  map: { get(key: K): V | undefined; set(key: K, value: V): unknown },
  key: K,
  create: () => V,
): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

/** Appends to the list of a key. */
export function appendTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  getOrCreate(map, key, () => []).push(value);
}
