// A decision id carries the millisecond it was made, and its row is recorded at exactly that
// time (src/util/ids.ts); decision_id_time(id) reads it in SQL (migration 009). History is
// partitioned by day, so statements that start from a decision id use it to reach only the days
// it can be in.

/** Rows of a history table made for decision `decisionId` (a parameter or column, `$1` by
 *  default): none is older than the decision, so the days before the one its id carries are
 *  skipped (every day for an id that carries none). An hour of slack for instances whose clocks
 *  disagree. */
export const sinceDecision = (createdAt: string, decisionId = '$1') =>
  `${createdAt} >= coalesce(decision_id_time(${decisionId}) - interval '1 hour', '-infinity')`;
