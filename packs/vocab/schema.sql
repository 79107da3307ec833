-- Vocabulary Trainer. Re-applied at every start: every statement must be idempotent.
-- Dates are ISO strings: *_on columns hold the user's local date (YYYY-MM-DD, the :today of
-- the query that wrote them), created_at / reviewed_at hold UTC timestamps (:now,
-- YYYY-MM-DDTHH:MM:SS.SSSZ).
--
-- schema.sql runs first at every start, migrations/ after it (a fresh home gets both), so the
-- columns a migration adds are not in the CREATE TABLEs below; they are listed in comments
-- ("0001:") and created by migrations/0001_review_states.sql, with their indexes.

CREATE TABLE IF NOT EXISTS decks (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,                 -- e.g. "Spanish", "Travel phrases"
  front_lang  TEXT,                          -- language being learned (front of the card), e.g. "es"
  back_lang   TEXT,                          -- language of the translation (back), e.g. "en"
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX IF NOT EXISTS decks_name ON decks (lower(name));

-- The schedule columns (ease … last_reviewed_on, and state) are kept by the trigger
-- reviews_schedule below: a grade is one INSERT into reviews, never an UPDATE of a card.
CREATE TABLE IF NOT EXISTS cards (
  id               INTEGER PRIMARY KEY,
  deck_id          INTEGER NOT NULL REFERENCES decks (id),
  front            TEXT NOT NULL,            -- word or phrase in the language being learned
  back             TEXT NOT NULL,            -- translation / meaning
  example          TEXT,                     -- example sentence in the language being learned
  notes            TEXT,                     -- gender, plural, register, mnemonic...
  ease             REAL NOT NULL DEFAULT 2.5,
  interval_days    INTEGER NOT NULL DEFAULT 0,
  repetitions      INTEGER NOT NULL DEFAULT 0, -- successful reviews in a row
  lapses           INTEGER NOT NULL DEFAULT 0, -- times forgotten once learned (Again in state review)
  due_on           TEXT NOT NULL DEFAULT (date('now')),
  last_reviewed_on TEXT,
  suspended        INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
  created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  -- 0001: state TEXT NOT NULL DEFAULT 'new'
  --         CHECK (state IN ('new', 'learning', 'review', 'relearning'))
  --   new        never graded (a new card is shown only within the day's limit, preferences)
  --   learning   graded, not yet learned: interval 1 day (Again, or Hard/Good the first time)
  --   review     learned: Easy, or a second success in a row (interval 2+ days)
  --   relearning forgotten once learned (Again in review), until learned again
);
CREATE UNIQUE INDEX IF NOT EXISTS cards_deck_front ON cards (deck_id, lower(trim(front)));
CREATE INDEX IF NOT EXISTS cards_due ON cards (suspended, due_on);

-- One review session (/review): its grades are counted in its summary.
CREATE TABLE IF NOT EXISTS review_sessions (
  id          INTEGER PRIMARY KEY,
  started_at  TEXT NOT NULL,                 -- :now
  started_on  TEXT NOT NULL                  -- :today
);

-- One row per grade. Insert card_id, reviewed_on (:today), reviewed_at (:now), grade and
-- session_id; the trigger fills the rest and reschedules the card.
CREATE TABLE IF NOT EXISTS reviews (
  id              INTEGER PRIMARY KEY,
  card_id         INTEGER NOT NULL REFERENCES cards (id),
  reviewed_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  reviewed_on     TEXT NOT NULL,             -- the user's local date of the review
  grade           TEXT NOT NULL CHECK (grade IN ('again', 'hard', 'good', 'easy')),
  ease_before     REAL,                      -- the card before and after (filled by the trigger)
  ease_after      REAL,
  interval_before INTEGER,
  interval_after  INTEGER
  -- 0001: session_id INTEGER REFERENCES review_sessions (id) (null outside /review)
  -- 0001: state_before TEXT, state_after TEXT, due_after TEXT (filled by the trigger)
);
CREATE INDEX IF NOT EXISTS reviews_card ON reviews (card_id);
CREATE INDEX IF NOT EXISTS reviews_day ON reviews (reviewed_on);

-- The learner's limits: one row. Change it with db_write (update, where id = 1).
CREATE TABLE IF NOT EXISTS preferences (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  new_per_day INTEGER NOT NULL DEFAULT 20 CHECK (new_per_day BETWEEN 0 AND 500)
);
INSERT OR IGNORE INTO preferences (id) VALUES (1);

-- The quiz (/quiz): practice that never touches the schedule.
CREATE TABLE IF NOT EXISTS quizzes (
  id          INTEGER PRIMARY KEY,
  started_at  TEXT NOT NULL,                 -- :now
  size        INTEGER NOT NULL CHECK (size BETWEEN 1 AND 20)
);
CREATE TABLE IF NOT EXISTS quiz_answers (
  id          INTEGER PRIMARY KEY,
  quiz_id     INTEGER NOT NULL REFERENCES quizzes (id),
  card_id     INTEGER NOT NULL REFERENCES cards (id),   -- the card asked
  choice_id   INTEGER NOT NULL REFERENCES cards (id),   -- the card whose word was pressed
  correct     INTEGER NOT NULL CHECK (correct IN (0, 1)),
  answered_at TEXT NOT NULL                             -- :now
);
CREATE INDEX IF NOT EXISTS quiz_answers_quiz ON quiz_answers (quiz_id);
CREATE INDEX IF NOT EXISTS quiz_answers_card ON quiz_answers (card_id);

-- A review's day must be a date: the schedule counts from it.
CREATE TRIGGER IF NOT EXISTS reviews_day_is_a_date BEFORE INSERT ON reviews
WHEN date(NEW.reviewed_on) IS NOT NEW.reviewed_on
BEGIN
  SELECT RAISE(ABORT, 'reviews.reviewed_on must be a date, YYYY-MM-DD (use :today)');
END;

-- SM-2, kept exact by the database: a grade reschedules its card, whoever inserts it.
-- E = ease, I = interval_days, R = repetitions, all as they were (SQLite's UPDATE reads the
-- old row in every SET expression); ease never below 1.3, interval at most 365 days.
--   Again: E − 0.20; I = 1; R = 0
--   Hard:  E − 0.15; I = 1 if R = 0, else max(I + 1, round(I × 1.2)); R + 1
--   Good:  E;        I = 1 if R = 0, 6 if R = 1, else max(I + 1, round(I × E)); R + 1
--   Easy:  E + 0.15; I = 4 if R = 0, 8 if R = 1, else max(I + 2, round(I × E × 1.3)); R + 1
--   due_on = reviewed_on + I days (the person's day, as the INSERT gave it)
-- The state: Again sends a learned card (review, relearning) to relearning and counts a lapse
-- when it was in review, any other to learning; Easy, or a success after a success (R ≥ 1),
-- makes it review; another success keeps learning or relearning.
CREATE TRIGGER IF NOT EXISTS reviews_schedule AFTER INSERT ON reviews
BEGIN
  UPDATE reviews SET
    state_before = (SELECT state FROM cards WHERE id = NEW.card_id),
    ease_before = (SELECT ease FROM cards WHERE id = NEW.card_id),
    interval_before = (SELECT interval_days FROM cards WHERE id = NEW.card_id)
  WHERE id = NEW.id;
  UPDATE cards SET
    ease = round(CASE NEW.grade
      WHEN 'again' THEN max(1.3, ease - 0.2)
      WHEN 'hard' THEN max(1.3, ease - 0.15)
      WHEN 'good' THEN ease
      ELSE ease + 0.15 END, 2),
    interval_days = min(365, CASE NEW.grade
      WHEN 'again' THEN 1
      WHEN 'hard' THEN CASE WHEN repetitions = 0 THEN 1
        ELSE max(interval_days + 1, CAST(round(interval_days * 1.2) AS INTEGER)) END
      WHEN 'good' THEN CASE repetitions WHEN 0 THEN 1 WHEN 1 THEN 6
        ELSE max(interval_days + 1, CAST(round(interval_days * ease) AS INTEGER)) END
      ELSE CASE repetitions WHEN 0 THEN 4 WHEN 1 THEN 8
        ELSE max(interval_days + 2, CAST(round(interval_days * ease * 1.3) AS INTEGER)) END
      END),
    repetitions = CASE NEW.grade WHEN 'again' THEN 0 ELSE repetitions + 1 END,
    lapses = lapses + (NEW.grade = 'again' AND state = 'review'),
    state = CASE
      WHEN NEW.grade = 'again' THEN
        CASE WHEN state IN ('review', 'relearning') THEN 'relearning' ELSE 'learning' END
      WHEN NEW.grade = 'easy' OR repetitions >= 1 THEN 'review'
      WHEN state = 'relearning' THEN 'relearning'
      ELSE 'learning' END,
    last_reviewed_on = NEW.reviewed_on
  WHERE id = NEW.card_id;
  UPDATE cards SET due_on = date(NEW.reviewed_on, printf('+%d days', interval_days))
  WHERE id = NEW.card_id;
  UPDATE reviews SET
    state_after = (SELECT state FROM cards WHERE id = NEW.card_id),
    ease_after = (SELECT ease FROM cards WHERE id = NEW.card_id),
    interval_after = (SELECT interval_days FROM cards WHERE id = NEW.card_id),
    due_after = (SELECT due_on FROM cards WHERE id = NEW.card_id)
  WHERE id = NEW.id;
END;
