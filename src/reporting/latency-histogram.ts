// Decide latency percentiles from the rollups' histogram. Percentiles do not add up across
// minutes, counts per bucket do: bucket b holds latencies in [2^(b/8), 2^((b+1)/8)) µs (eight
// buckets per doubling, about 9% wide), so any latency is within 4.4% of its bucket's geometric
// middle, and so is a percentile read from the buckets (an interpolation between two such
// values errs no more than they do). The bucket is computed in SQL where rows are written
// (report-repository.ts, migration 005).

/** The bucket of a latency in microseconds, as the SQL computes it (for tests and tools). */
export function latencyBucket(latencyUs: number): number {
  return Math.floor(8 * Math.log2(Math.max(latencyUs, 1)));
}

/** The value a bucket stands for: its geometric middle, in microseconds. */
export function bucketMiddleUs(bucket: number): number {
  return 2 ** ((bucket + 0.5) / 8);
}

/**
 * The p-th percentile (0..1) in microseconds, as Postgres' percentile_cont would give it over
 * the latencies themselves (linear between the two nearest ranks), with each latency taken as
 * its bucket's middle. Null for an empty histogram.
 */
export function percentileUs(histogram: ReadonlyArray<{ bucket: number; n: number }>, p: number): number | null {
  const sorted = [...histogram].filter((h) => h.n > 0).sort((a, b) => a.bucket - b.bucket);
  const total = sorted.reduce((n, h) => n + h.n, 0);
  if (total === 0) return null;
  const rank = p * (total - 1);
  const below = Math.floor(rank);
  const valueAt = (k: number) => {
    let seen = 0;
    for (const h of sorted) {
      seen += h.n;
      if (k < seen) return bucketMiddleUs(h.bucket);
    }
    return bucketMiddleUs(sorted[sorted.length - 1].bucket);
  };
  const low = valueAt(below);
  return below === rank ? low : low + (rank - below) * (valueAt(below + 1) - low);
}
