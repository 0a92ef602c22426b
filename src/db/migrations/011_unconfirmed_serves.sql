-- A served decision is recorded before the decide knows whether its answer reaches the host in
-- time; one that then answers TIMEOUT is corrected to a TIMEOUT row (its spend off the ledger)
-- by the instance that answered. That correction lived only in the instance's memory, so a kill,
-- a shutdown during a Postgres outage, or an outage longer than its retries left served rows and
-- spend for answers the host never got.
--
-- Now a served row is written `unconfirmed`, and the instance confirms it once the answer went
-- out in time. A row still unconfirmed some minutes later is corrected to TIMEOUT by whichever
-- instance finds it (src/decisions/unconfirmed-serves.ts): the rule holds whatever fails, and
-- what a failure can cost is an unbilled serve, never a billed answer the host did not get.
ALTER TABLE decisions ADD COLUMN unconfirmed boolean NOT NULL DEFAULT false;

-- Only the few rows between their write and their confirmation are in it.
CREATE INDEX decisions_unconfirmed ON decisions (created_at) WHERE unconfirmed;
