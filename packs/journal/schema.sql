-- Journal. Re-applied at every start: every statement must be idempotent (views and triggers
-- are dropped and made again, so each start has the ones shipped with the pack).
-- *_date / week_start hold the user's local date (YYYY-MM-DD); created_at / sent_at / read_at
-- hold UTC timestamps (:now). Tags are stored lowercase, comma-wrapped: ",work,family," so
-- that tags LIKE '%,work,%' matches one tag exactly.
--
-- The journal day: what is written or checked in before 04:00 local time belongs to the day
-- before (a 00:30 entry is about the evening that just ended). SQLite knows no time zone and
-- the date parameters hold dates only, so the zone's offset is learned from a clock reading:
-- a model turn copies the HH:MM of its [Now: …] line into `clock_readings` next to :now and
-- :today, and `local_clock` turns the newest reading into a modifier ('+60 minutes'). Every
-- query and action then reads the journal day the same way:
--   CASE WHEN date(:now, shift) = :today AND strftime('%H:%M', :now, shift) < '04:00'
--        THEN :yesterday ELSE :today END          FROM (SELECT 1) LEFT JOIN local_clock
-- With no reading, or one that disagrees with :today (a DST change since), it is :today.

CREATE TABLE IF NOT EXISTS entries (
  id          INTEGER PRIMARY KEY,
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  entry_date  TEXT NOT NULL,                                   -- the journal day it is about
  mood        INTEGER CHECK (mood BETWEEN 1 AND 5),
  energy      INTEGER CHECK (energy BETWEEN 1 AND 5),
  tags        TEXT,                                            -- ",tag1,tag2,"
  body        TEXT NOT NULL,                                   -- the user's own words
  prompt      TEXT                                             -- the question(s) that led to it
);
CREATE INDEX IF NOT EXISTS entries_date ON entries (entry_date);

CREATE TABLE IF NOT EXISTS checkins (
  id            INTEGER PRIMARY KEY,
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  checkin_date  TEXT NOT NULL,                                 -- the journal day
  checkin_time  TEXT,                                          -- local HH:MM (null: unknown)
  mood          INTEGER NOT NULL CHECK (mood BETWEEN 1 AND 5),
  energy        INTEGER CHECK (energy BETWEEN 1 AND 5),
  note          TEXT
);
CREATE INDEX IF NOT EXISTS checkins_date ON checkins (checkin_date);

-- One row per reviewed week, keyed by that week's Monday: "already reviewed" means this week
-- has a row, whenever the review was asked. entry_count and mood_avg are kept by the triggers
-- below from the week's entries and check-ins; nobody writes them.
CREATE TABLE IF NOT EXISTS weekly_reviews (
  id           INTEGER PRIMARY KEY,
  week_start   TEXT NOT NULL,                                  -- Monday of the reviewed week
  entry_count  INTEGER NOT NULL DEFAULT 0,
  mood_avg     REAL,
  summary      TEXT NOT NULL,
  highlights   TEXT,
  intentions   TEXT,                                           -- for the following week
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX IF NOT EXISTS weekly_reviews_week ON weekly_reviews (week_start);

-- Questions sent by the evening job, so that an entry can say which one it answers.
CREATE TABLE IF NOT EXISTS prompts (
  id           INTEGER PRIMARY KEY,
  prompt_date  TEXT NOT NULL,                                  -- the journal day asked about
  prompt       TEXT NOT NULL,
  sent_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  entry_id     INTEGER REFERENCES entries (id)                 -- set once answered
);
CREATE INDEX IF NOT EXISTS prompts_date ON prompts (prompt_date);

-- What the clock read when a model turn dated something: the instant (:now), the local date
-- (:today) and the local HH:MM copied from the [Now: …] line. Only the offset between them is
-- used; a reading more than 14 hours off UTC is refused (the time was misread).
CREATE TABLE IF NOT EXISTS clock_readings (
  id          INTEGER PRIMARY KEY,
  read_at     TEXT NOT NULL CHECK (julianday(read_at) IS NOT NULL),
  local_date  TEXT NOT NULL CHECK (local_date GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
  local_time  TEXT NOT NULL CHECK (local_time GLOB '[0-2][0-9]:[0-5][0-9]'),
  CHECK ((julianday(local_date || ' ' || local_time) - julianday(read_at)) * 24 BETWEEN -12.5 AND 14.5)
);

DROP TRIGGER IF EXISTS clock_readings_pruned;
CREATE TRIGGER clock_readings_pruned AFTER INSERT ON clock_readings BEGIN
  DELETE FROM clock_readings WHERE id <= NEW.id - 30;
END;

-- The newest reading's offset from UTC, rounded to a quarter hour, as a date modifier.
DROP VIEW IF EXISTS local_clock;
CREATE VIEW local_clock AS
SELECT printf('%+d minutes',
         CAST(round((julianday(local_date || ' ' || local_time) - julianday(read_at)) * 96) AS INTEGER) * 15
       ) AS shift,
       read_at
FROM clock_readings ORDER BY id DESC LIMIT 1;

-- One row per journal day with something logged: its weekday, how many entries and check-ins,
-- and the moods logged (entries' and check-ins' alike, each counts once). A period's average
-- is sum(mood_sum) / sum(moods) (energy: sum(energy_sum) / sum(energies)); a day's is `mood`.
DROP VIEW IF EXISTS journal_days;
CREATE VIEW journal_days AS
SELECT day,
       rtrim(substr('Sunday   Monday   Tuesday  WednesdayThursday Friday   Saturday ',
                    1 + 9 * strftime('%w', day), 9)) AS weekday,
       sum(is_entry) AS entries,
       count(*) - sum(is_entry) AS checkins,
       count(mood) AS moods,
       sum(mood) AS mood_sum,
       avg(mood) AS mood,
       count(energy) AS energies,
       sum(energy) AS energy_sum
FROM (SELECT entry_date AS day, 1 AS is_entry, mood, energy FROM entries
      UNION ALL
      SELECT checkin_date, 0, mood, energy FROM checkins)
GROUP BY day;

-- A review's numbers come from the week's rows, never from what the model wrote.
DROP TRIGGER IF EXISTS weekly_reviews_counted;
CREATE TRIGGER weekly_reviews_counted AFTER INSERT ON weekly_reviews BEGIN
  UPDATE weekly_reviews SET
    entry_count = (SELECT count(*) FROM entries
                   WHERE entry_date BETWEEN NEW.week_start AND date(NEW.week_start, '+6 days')),
    mood_avg = (SELECT round(sum(mood_sum) * 1.0 / sum(moods), 1) FROM journal_days
                WHERE day BETWEEN NEW.week_start AND date(NEW.week_start, '+6 days'))
  WHERE id = NEW.id;
END;

DROP TRIGGER IF EXISTS weekly_reviews_recounted;
-- Any change of the row counts again (a redo, intentions saved after a late entry, a model
-- writing a number): SQLite's recursive triggers are off, so its own UPDATE does not loop.
CREATE TRIGGER weekly_reviews_recounted AFTER UPDATE ON weekly_reviews BEGIN
  UPDATE weekly_reviews SET
    entry_count = (SELECT count(*) FROM entries
                   WHERE entry_date BETWEEN NEW.week_start AND date(NEW.week_start, '+6 days')),
    mood_avg = (SELECT round(sum(mood_sum) * 1.0 / sum(moods), 1) FROM journal_days
                WHERE day BETWEEN NEW.week_start AND date(NEW.week_start, '+6 days'))
  WHERE id = NEW.id;
END;
