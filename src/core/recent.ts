/**
 * A map that keeps the `limit` entries used last: `get` and `set` mark an entry used, and
 * `set` forgets the one used longest ago once there are more than `limit`.
 */
export function createRecent<K, V>(limit: number) {
  const entries = new Map<K, V>();

  const use = (key: K, value: V): void => {
    entries.delete(key);
    entries.set(key, value);
  };

  return {
    get(key: K): V | undefined {
      const value = entries.get(key);
      if (value !== undefined) use(key, value);
      return value;
    },

    /** The entry without marking it used. */
    peek: (key: K): V | undefined => entries.get(key),

    set(key: K, value: V): void {
      use(key, value);
      if (entries.size > limit) entries.delete(entries.keys().next().value as K);
    },
  };
}
