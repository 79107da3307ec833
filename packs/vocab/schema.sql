-- Vocabulary Trainer. Re-applied at every start: every statement must be idempotent.
-- Dates are ISO strings: *_on columns hold the user's local date (YYYY-MM-DD),
-- created_at / reviewed_at hold UTC timestamps (YYYY-MM-DDTHH:MM:SS.SSSZ).

CREATE TABLE IF NOT EXISTS decks (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,                 -- e.g. "Spanish", "Travel phrases"
  front_lang  TEXT,                          -- language being learned (front of the card), e.g. "es"
  back_lang   TEXT,                          -- language of the translation (back), e.g. "en"
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX IF NOT EXISTS decks_name ON decks (lower(name));

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
  lapses           INTEGER NOT NULL DEFAULT 0, -- times graded "again"
  due_on           TEXT NOT NULL DEFAULT (date('now')),
  last_reviewed_on TEXT,
  suspended        INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
  created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX IF NOT EXISTS cards_deck_front ON cards (deck_id, lower(trim(front)));
CREATE INDEX IF NOT EXISTS cards_due ON cards (suspended, due_on);

CREATE TABLE IF NOT EXISTS reviews (
  id              INTEGER PRIMARY KEY,
  card_id         INTEGER NOT NULL REFERENCES cards (id),
  reviewed_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  reviewed_on     TEXT NOT NULL,             -- the user's local date of the review
  grade           TEXT NOT NULL CHECK (grade IN ('again', 'hard', 'good', 'easy')),
  ease_before     REAL,
  ease_after      REAL,
  interval_before INTEGER,
  interval_after  INTEGER
);
CREATE INDEX IF NOT EXISTS reviews_card ON reviews (card_id);
CREATE INDEX IF NOT EXISTS reviews_day ON reviews (reviewed_on);
