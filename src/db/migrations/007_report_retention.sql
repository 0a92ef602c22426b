-- Retention of the report rollups (src/db/history-partitions.ts runs it): funnel marks go with
-- the decisions they belong to, found by the decision's time.
CREATE INDEX report_funnel_marks_decided ON report_funnel_marks (decided_at);
