-- Before 1.1.0, /weekly_review asked on a Monday (as the Sunday review suggested, to set
-- intentions) found last week reviewed and reviewed the week that had just begun, so that
-- week's own Sunday review stayed silent. Such a row was written before its week's Thursday.
-- Its intentions, typed that Monday for the week ahead, belong to the review of the week
-- before (whose `intentions` are "for the following week"), when that one has none; the
-- early row then goes, so the week is reviewed once it has ended. An early row whose
-- intentions differ from the week before's is kept: they would be lost.

UPDATE weekly_reviews AS prev
SET intentions = (
  SELECT early.intentions FROM weekly_reviews AS early
  WHERE early.week_start = date(prev.week_start, '+7 days')
    AND early.created_at < date(early.week_start, '+3 days')
)
WHERE prev.intentions IS NULL
  AND EXISTS (
    SELECT 1 FROM weekly_reviews AS early
    WHERE early.week_start = date(prev.week_start, '+7 days')
      AND early.created_at < date(early.week_start, '+3 days')
      AND early.intentions IS NOT NULL
  );

DELETE FROM weekly_reviews
WHERE created_at < date(week_start, '+3 days')
  AND (
    intentions IS NULL
    OR intentions = (
      SELECT prev.intentions FROM weekly_reviews AS prev
      WHERE prev.week_start = date(weekly_reviews.week_start, '-7 days')
    )
  );
