-- Version 2.0: pauses are days (habit_pauses, created by schema.sql), not a status.
-- schema.sql has run before this file, so habit_pauses and its triggers exist.

-- A habit paused before this version: when it was paused was not recorded, so its pause is
-- taken to start the day after its last check-in (or the day it started): the streak it had
-- then is kept, frozen, instead of being broken by the paused days.
INSERT INTO habit_pauses (habit_id, starts_on)
SELECT h.id,
  coalesce(date((SELECT max(l.log_date) FROM habit_logs l WHERE l.habit_id = h.id), '+1 day'), h.started_on)
FROM habits h
WHERE h.status = 'paused'
  AND NOT EXISTS (SELECT 1 FROM habit_pauses p WHERE p.habit_id = h.id AND p.ends_on IS NULL);

-- A check-in before the day its habit was added means the habit started then (the trigger
-- habit_logs_move_start keeps this true from now on).
UPDATE habits
SET started_on = (SELECT min(l.log_date) FROM habit_logs l WHERE l.habit_id = habits.id)
WHERE started_on > (SELECT min(l.log_date) FROM habit_logs l WHERE l.habit_id = habits.id);
