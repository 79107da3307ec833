-- Journal. Re-applied at every start: every statement must be idempotent.
-- *_date / week_start hold the user's local date (YYYY-MM-DD); created_at / sent_at hold
-- UTC timestamps. Tags are stored lowercase, comma-wrapped: ",work,family," so that
-- tags LIKE '%,work,%' matches one tag exactly.

CREATE TABLE IF NOT EXISTS entries (
  id          INTEGER PRIMARY KEY,
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  entry_date  TEXT NOT NULL,                                   -- the day the entry is about
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
  checkin_date  TEXT NOT NULL,
  checkin_time  TEXT,                                          -- local HH:MM
  mood          INTEGER NOT NULL CHECK (mood BETWEEN 1 AND 5),
  energy        INTEGER CHECK (energy BETWEEN 1 AND 5),
  note          TEXT
);
CREATE INDEX IF NOT EXISTS checkins_date ON checkins (checkin_date);

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

-- Prompts sent by the scheduled evening job (an isolated session), so that /write in the
-- main chat can pick up the question the user is answering.
CREATE TABLE IF NOT EXISTS prompts (
  id           INTEGER PRIMARY KEY,
  prompt_date  TEXT NOT NULL,
  prompt       TEXT NOT NULL,
  sent_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  entry_id     INTEGER REFERENCES entries (id)                 -- set once answered
);
CREATE INDEX IF NOT EXISTS prompts_date ON prompts (prompt_date);
