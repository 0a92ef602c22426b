/** `compute`, remembered per key in a map of at most `bound` entries: for pure functions asked
 *  the same few keys again and again (a host's locale tag, a client's address). Past the bound
 *  the map starts over, so a flood of distinct keys cannot grow it. */
export function boundedMemo<K, V>(bound: number, compute: (key: K) => V): (key: K) => V {
  const known = new Map<K, V>();
  return (key) => {
    if (known.has(key)) return known.get(key) as V;
    const value = compute(key);
    if (known.size >= bound) known.clear();
    known.set(key, value);
    return value;
  };
}
