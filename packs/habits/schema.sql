-- Habit Tracker. Re-applied at every start: every statement must be idempotent.
-- log_date / started_on / starts_on / ends_on hold the user's local date (YYYY-MM-DD); created_at is UTC.
-- Streaks, weekly goals and percentages are computed by the queries in pack.yml and the
-- skills from the view habit_days below; nothing here asks the model to count.

CREATE TABLE IF NOT EXISTS habits (
  id               INTEGER PRIMARY KEY,
  name             TEXT NOT NULL,                 -- short, e.g. "Run", "Read 20 pages"
  emoji            TEXT,
  why              TEXT,                          -- the user's reason, shown when motivation dips
  cue              TEXT,                          -- when/where, e.g. "after morning coffee"
  target_per_week  INTEGER NOT NULL DEFAULT 7 CHECK (target_per_week BETWEEN 1 AND 7), -- 7 = daily
  -- 'paused' exactly while the habit has an open pause (habit_pauses.ends_on IS NULL): kept by
  -- the triggers below, so pause and resume through habit_pauses.
  status           TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'archived')),
  started_on       TEXT NOT NULL,                 -- moved back by a check-in before it (trigger)
  created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX IF NOT EXISTS habits_name ON habits (lower(name)) WHERE status <> 'archived';

-- One row per habit and day. No row = not done (yet). 'skipped' = an excused day (sick,
-- travel): it neither breaks nor extends a streak and lowers that week's goal (see habit_days).
CREATE TABLE IF NOT EXISTS habit_logs (
  id          INTEGER PRIMARY KEY,
  habit_id    INTEGER NOT NULL REFERENCES habits (id),
  log_date    TEXT NOT NULL,
  status      TEXT NOT NULL DEFAULT 'done' CHECK (status IN ('done', 'skipped')),
  note        TEXT,
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX IF NOT EXISTS habit_logs_day ON habit_logs (habit_id, log_date);
CREATE INDEX IF NOT EXISTS habit_logs_date ON habit_logs (log_date);

-- A pause (holiday, injury): the days from starts_on to ends_on (inclusive; NULL = until
-- resumed) are paused: they neither break nor extend a streak and do not count towards the
-- week's goal. Resuming on the day of the pause (ends_on = the day before starts_on) leaves
-- no paused day, and the row is removed.
CREATE TABLE IF NOT EXISTS habit_pauses (
  id          INTEGER PRIMARY KEY,
  habit_id    INTEGER NOT NULL REFERENCES habits (id),
  starts_on   TEXT NOT NULL CHECK (starts_on IS date(starts_on)),
  ends_on     TEXT CHECK (ends_on IS date(ends_on) AND ends_on >= date(starts_on, '-1 day')),
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX IF NOT EXISTS habit_pauses_open ON habit_pauses (habit_id) WHERE ends_on IS NULL;
CREATE INDEX IF NOT EXISTS habit_pauses_habit ON habit_pauses (habit_id, starts_on);

-- Every day from 2000 to 2099 with the Monday of its week: the days a habit had, whether or
-- not anything was logged on them (a missed day is a day without a row). Filled once.
CREATE TABLE IF NOT EXISTS calendar (
  day         TEXT PRIMARY KEY,
  week_start  TEXT NOT NULL
) WITHOUT ROWID;
WITH RECURSIVE d(day) AS (
  SELECT '2000-01-01' WHERE NOT EXISTS (SELECT 1 FROM calendar)
  UNION ALL SELECT date(day, '+1 day') FROM d WHERE day < '2099-12-31'
)
INSERT INTO calendar (day, week_start) SELECT day, date(day, '-6 days', 'weekday 1') FROM d;

-- Each habit's days since it started, each in one state: 'done' or 'skipped' (its check-in),
-- 'paused' (no check-in, inside a pause) or 'open' (no check-in: missed once the day is over).
-- Unbounded towards the future: always filter on day (`WHERE day <= :today`).
CREATE VIEW IF NOT EXISTS habit_days AS
SELECT h.id AS habit_id, c.day, c.week_start,
  CASE
    WHEN l.status IS NOT NULL THEN l.status
    WHEN EXISTS (
      SELECT 1 FROM habit_pauses p
      WHERE p.habit_id = h.id AND p.starts_on <= c.day AND (p.ends_on IS NULL OR c.day <= p.ends_on)
    ) THEN 'paused'
    ELSE 'open'
  END AS state
FROM habits h
JOIN calendar c ON c.day >= h.started_on
LEFT JOIN habit_logs l ON l.habit_id = h.id AND l.log_date = c.day;

-- A check-in is one row a day: a new one replaces that day's (done after skipped, a note
-- added), so inserting is all a writer does. Dates must be real days.
CREATE TRIGGER IF NOT EXISTS habit_logs_one_a_day BEFORE INSERT ON habit_logs BEGIN
  SELECT RAISE(ABORT, 'log_date must be a date YYYY-MM-DD: write ":today" or ":yesterday", or a day from a query')
  WHERE NEW.log_date IS NOT date(NEW.log_date);
  SELECT RAISE(ABORT, 'there is no habit with that habit_id: look it up in habits first')
  WHERE NOT EXISTS (SELECT 1 FROM habits WHERE id = NEW.habit_id);
  DELETE FROM habit_logs WHERE habit_id = NEW.habit_id AND log_date = NEW.log_date;
END;
-- A habit done before the day it was added started then.
CREATE TRIGGER IF NOT EXISTS habit_logs_move_start AFTER INSERT ON habit_logs BEGIN
  UPDATE habits SET started_on = NEW.log_date WHERE id = NEW.habit_id AND started_on > NEW.log_date;
END;

-- The habit's status follows its open pause: paused while there is one, active once it ends.
CREATE TRIGGER IF NOT EXISTS habit_pauses_one_open BEFORE INSERT ON habit_pauses WHEN NEW.ends_on IS NULL BEGIN
  SELECT RAISE(ABORT, 'this habit is paused already: resume it first (update ends_on of its open pause)')
  WHERE EXISTS (SELECT 1 FROM habit_pauses WHERE habit_id = NEW.habit_id AND ends_on IS NULL);
  SELECT RAISE(ABORT, 'there is no habit with that habit_id (archived ones cannot be paused)')
  WHERE NOT EXISTS (SELECT 1 FROM habits WHERE id = NEW.habit_id AND status <> 'archived');
END;
CREATE TRIGGER IF NOT EXISTS habit_pauses_pause AFTER INSERT ON habit_pauses WHEN NEW.ends_on IS NULL BEGIN
  UPDATE habits SET status = 'paused' WHERE id = NEW.habit_id AND status = 'active';
END;
CREATE TRIGGER IF NOT EXISTS habit_pauses_resume AFTER UPDATE OF ends_on ON habit_pauses
WHEN OLD.ends_on IS NULL AND NEW.ends_on IS NOT NULL BEGIN
  UPDATE habits SET status = 'active' WHERE id = NEW.habit_id AND status = 'paused';
  DELETE FROM habit_pauses WHERE id = NEW.id AND NEW.ends_on < NEW.starts_on;
END;
-- Pausing or resuming by status alone would leave the paused days unknown: refused, with how.
CREATE TRIGGER IF NOT EXISTS habits_status_follows_pauses BEFORE UPDATE OF status ON habits BEGIN
  SELECT RAISE(ABORT, 'to pause a habit, insert into habit_pauses { habit_id, starts_on: ":today" }: its status follows')
  WHERE NEW.status = 'paused' AND OLD.status <> 'paused'
    AND NOT EXISTS (SELECT 1 FROM habit_pauses WHERE habit_id = NEW.id AND ends_on IS NULL);
  SELECT RAISE(ABORT, 'to resume a habit, update habit_pauses { ends_on: ":yesterday" } where { habit_id, ends_on: null }: its status follows')
  WHERE NEW.status = 'active'
    AND EXISTS (SELECT 1 FROM habit_pauses WHERE habit_id = NEW.id AND ends_on IS NULL);
END;
-- Deleting a habit deletes its check-ins and pauses with it.
CREATE TRIGGER IF NOT EXISTS habits_delete_history BEFORE DELETE ON habits BEGIN
  DELETE FROM habit_logs WHERE habit_id = OLD.id;
  DELETE FROM habit_pauses WHERE habit_id = OLD.id;
END;
