-- Why a no-fill was a no-fill, beyond its reason codes, for the decision's explanation: what a
-- POLICY_BLOCK stood on (`audience`, `consent`, `host_safety`, `sensitive:<family>`, or
-- `sensitive` when only the learned classifier read it; src/decide/gates.ts), and whether the
-- core's reading spent its step budget. A family label from a fixed list, never the words that
-- fired: the message itself is still never written.
ALTER TABLE decisions ADD COLUMN policy_reasons text[] NOT NULL DEFAULT '{}';
ALTER TABLE decisions ADD COLUMN reading_over_budget boolean NOT NULL DEFAULT false;
