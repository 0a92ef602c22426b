-- What won a served decision, beside what it matched: the categories the offer met only because
-- a named entity implies them (a place implies travel). matched_category_ids hold the categories
-- the turn asked for, matched_entity_ids the entities named; the explanation names all three.
ALTER TABLE decisions ADD COLUMN implied_category_ids text[] NOT NULL DEFAULT '{}';
