-- Assistant. Re-applied at every start: every statement must be idempotent.
-- due_on and done_on hold the user's local date (YYYY-MM-DD); created_at is UTC.
-- What is due, overdue or done today is computed by the queries in pack.yml and the skills
-- (`:today`, `:yesterday`); nothing here asks the model to work out a date.

-- A to-do: something to do, with an optional day it is due. Reminders at a time of day are
-- scheduled jobs (the `schedule` tool), not rows here.
CREATE TABLE IF NOT EXISTS todos (
  id          INTEGER PRIMARY KEY,
  title       TEXT NOT NULL CHECK (length(trim(title)) BETWEEN 1 AND 200),
  notes       TEXT,
  due_on      TEXT,                          -- NULL: someday
  status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done')),
  done_on     TEXT,                          -- the local day it was ticked off
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX IF NOT EXISTS todos_open ON todos (status, due_on);

-- Every day from 2000 to 2099 with its weekday: "on Friday", "next Tuesday" and "in three
-- days" become a `day` copied from a query, never a date worked out by the model. Filled once.
CREATE TABLE IF NOT EXISTS calendar (
  day      TEXT PRIMARY KEY,
  weekday  TEXT NOT NULL
) WITHOUT ROWID;
WITH RECURSIVE d(day) AS (
  SELECT '2000-01-01' WHERE NOT EXISTS (SELECT 1 FROM calendar)
  UNION ALL SELECT date(day, '+1 day') FROM d WHERE day < '2099-12-31'
)
INSERT INTO calendar (day, weekday)
SELECT day, rtrim(substr('Sunday   Monday   Tuesday  WednesdayThursday Friday   Saturday ',
                         1 + 9 * strftime('%w', day), 9))
FROM d;

-- Dates must be real days, written as the skills say (":today", or a day from a query).
CREATE TRIGGER IF NOT EXISTS todos_dates BEFORE INSERT ON todos BEGIN
  SELECT RAISE(ABORT, 'due_on must be a date YYYY-MM-DD: write ":today", or copy a day from the calendar query in the todos skill')
  WHERE NEW.due_on IS NOT NULL AND NEW.due_on IS NOT date(NEW.due_on);
  SELECT RAISE(ABORT, 'a new to-do is open: leave status and done_on out')
  WHERE NEW.status <> 'open' OR NEW.done_on IS NOT NULL;
END;
CREATE TRIGGER IF NOT EXISTS todos_due_update BEFORE UPDATE OF due_on ON todos BEGIN
  SELECT RAISE(ABORT, 'due_on must be a date YYYY-MM-DD: write ":today", or copy a day from the calendar query in the todos skill')
  WHERE NEW.due_on IS NOT NULL AND NEW.due_on IS NOT date(NEW.due_on);
END;
-- Ticking off needs its day; reopening clears it. So "done today" is always exact.
CREATE TRIGGER IF NOT EXISTS todos_done_day BEFORE UPDATE OF status ON todos
WHEN NEW.status = 'done' AND OLD.status = 'open' BEGIN
  SELECT RAISE(ABORT, 'to tick a to-do off, write { status: "done", done_on: ":today" }')
  WHERE NEW.done_on IS NULL OR NEW.done_on IS NOT date(NEW.done_on);
END;
CREATE TRIGGER IF NOT EXISTS todos_reopen AFTER UPDATE OF status ON todos
WHEN NEW.status = 'open' AND NEW.done_on IS NOT NULL BEGIN
  UPDATE todos SET done_on = NULL WHERE id = NEW.id;
END;
