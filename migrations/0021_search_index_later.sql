-- memory_search's index is written after a turn, not inside each message's own commit: a
-- message's insert no longer adds its row to the FTS5 index (a new segment, and now and then
-- a merge, on every message). `messages_search_upto` says how far the index has read the
-- messages; store/search-index.ts indexes the rows after it at the end of a turn's task, and
-- first of all before anything reads the index. The delete trigger leaves out the rows not
-- indexed yet (FTS5 must never be told to delete a row it does not hold).
CREATE TABLE `messages_search_upto` (`upto` integer NOT NULL);
--> statement-breakpoint
INSERT INTO `messages_search_upto` (`upto`) SELECT coalesce(max(`id`), 0) FROM `messages`;
--> statement-breakpoint
DROP TRIGGER `messages_search_insert`;
--> statement-breakpoint
DROP TRIGGER `messages_search_delete`;
--> statement-breakpoint
CREATE TRIGGER `messages_search_delete` AFTER DELETE ON `messages`
WHEN old.`role` IN ('user', 'assistant') AND old.`content` != ''
  AND old.`id` <= (SELECT `upto` FROM `messages_search_upto`)
BEGIN
  INSERT INTO `messages_search` (`messages_search`, `rowid`, `content`, `scope`)
    SELECT 'delete', old.`id`, old.`content`, 's' || hex(s.`pack` || '|' || s.`key`)
    FROM `sessions` s WHERE s.`id` = old.`session_id`;
END;
