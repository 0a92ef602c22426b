-- Brand safety a host sets for its own app: offers in these catalog categories (or below them)
-- or from these advertisers are never eligible beside its answers. Read with the app's key on
-- every decide (cached like the key, so a change reaches every instance within the key cache's
-- second). Ids, not names: a category or advertiser the live catalog does not know excludes
-- nothing until a catalog that has it is imported.
ALTER TABLE apps ADD COLUMN blocked_category_ids text[] NOT NULL DEFAULT '{}';
ALTER TABLE apps ADD COLUMN blocked_advertiser_ids text[] NOT NULL DEFAULT '{}';
ALTER TABLE apps ADD COLUMN brand_safety_updated_at timestamptz;

-- The decision's explanation says when the app's own exclusions set aside an offer that
-- otherwise fitted (a no-fill the host chose, not one the catalog caused).
ALTER TABLE decisions ADD COLUMN excluded_by_app boolean NOT NULL DEFAULT false;
