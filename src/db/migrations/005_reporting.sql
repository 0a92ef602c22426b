-- Reporting. Campaigns get a display name for operators (reports and the dashboard show the id
-- when it is null); serving never reads it.
ALTER TABLE campaigns ADD COLUMN name text CHECK (length(name) BETWEEN 1 AND 120);
