-- Habit Tracker. Re-applied at every start: every statement must be idempotent.
-- log_date / started_on hold the user's local date (YYYY-MM-DD); created_at is UTC.

CREATE TABLE IF NOT EXISTS habits (
  id               INTEGER PRIMARY KEY,
  name             TEXT NOT NULL,                 -- short, e.g. "Run", "Read 20 pages"
  emoji            TEXT,
  why              TEXT,                          -- the user's reason, shown when motivation dips
  cue              TEXT,                          -- when/where, e.g. "after morning coffee"
  target_per_week  INTEGER NOT NULL DEFAULT 7 CHECK (target_per_week BETWEEN 1 AND 7), -- 7 = daily
  status           TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'archived')),
  started_on       TEXT NOT NULL,
  created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX IF NOT EXISTS habits_name ON habits (lower(name)) WHERE status <> 'archived';

-- One row per habit and day. No row = not done (yet). 'skipped' = a planned rest day
-- (sick, travel): it keeps a daily streak alive but does not count as done.
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
