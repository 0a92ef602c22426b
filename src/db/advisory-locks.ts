// Every Postgres advisory lock id Sidenote takes, in one place so no two jobs share one: an
// instance that holds one lock for its lifetime must never block another job of its own.
// The values are arbitrary and fixed: every instance of every version agrees on them.
export const ADVISORY_LOCKS = {
  /** Session lock while migrations run: instances starting together migrate one at a time. */
  migrations: 7_316_449_021,
  /** Session lock held for an instance's lifetime when it counts in process memory (no Redis). */
  inProcessCounters: 7_316_449_022,
  /** Transaction lock of a catalog import: one import at a time across instances. */
  catalogImport: 7_316_449_023,
  /** Session lock of a history maintenance run (day partitions made ahead, expired ones dropped):
   *  one instance does it; the others skip that run. */
  historyMaintenance: 7_316_449_024,
} as const;
