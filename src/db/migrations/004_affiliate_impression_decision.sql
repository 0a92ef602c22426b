-- The decision lookup counts an affiliate decision's click intents through its impressions:
-- without this index that count scans every affiliate impression ever issued.
CREATE INDEX affiliate_impressions_decision ON affiliate_impressions (decision_id);
