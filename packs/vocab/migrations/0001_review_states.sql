-- 1.1.0: reviews by buttons. A card has a state (new, learning, review, relearning), a grade
-- is one INSERT into reviews whose trigger (schema.sql, reviews_schedule) reschedules the
-- card and records the card before and after, and a review session counts its own grades.

ALTER TABLE cards ADD COLUMN state TEXT NOT NULL DEFAULT 'new'
  CHECK (state IN ('new', 'learning', 'review', 'relearning'));
ALTER TABLE reviews ADD COLUMN session_id INTEGER REFERENCES review_sessions (id);
ALTER TABLE reviews ADD COLUMN state_before TEXT;
ALTER TABLE reviews ADD COLUMN state_after TEXT;
ALTER TABLE reviews ADD COLUMN due_after TEXT;

-- The state of the cards already reviewed, from what 1.0 kept (it set R = 0 on Again and
-- counted every Again as a lapse): learned when R ≥ 1 with an interval of 2+ days; forgotten
-- once learned when an Again came at an interval of 2+ days; new when never reviewed.
UPDATE cards SET state = CASE
  WHEN repetitions >= 1 AND interval_days >= 2 THEN 'review'
  WHEN repetitions = 0 AND last_reviewed_on IS NULL
    AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.card_id = cards.id) THEN 'new'
  WHEN EXISTS (SELECT 1 FROM reviews r WHERE r.card_id = cards.id AND r.grade = 'again'
    AND r.interval_before >= 2) THEN 'relearning'
  ELSE 'learning' END;
-- A card's first review was of a new card: today's new cards count against the daily limit.
UPDATE reviews SET state_before = 'new'
WHERE id IN (SELECT min(id) FROM reviews GROUP BY card_id);

CREATE INDEX cards_queue ON cards (suspended, state, due_on);
CREATE INDEX reviews_session ON reviews (session_id);
