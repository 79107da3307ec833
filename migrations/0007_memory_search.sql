-- memory_search: an FTS5 index over the user's and the model's messages, each row tagged with
-- one token naming its pack and conversation ('s' || hex(pack || '|' || key)), so a search
-- reads only the doclist of its own scope. The index keeps no copy of the text: it reads it
-- from the view (external content).
CREATE VIEW `messages_search_source` AS
  SELECT m.`id` AS `id`, m.`content` AS `content`,
         's' || hex(s.`pack` || '|' || s.`key`) AS `scope`
  FROM `messages` m JOIN `sessions` s ON s.`id` = m.`session_id`
  WHERE m.`role` IN ('user', 'assistant') AND m.`content` != '';
--> statement-breakpoint
CREATE VIRTUAL TABLE `messages_search` USING fts5(
  `content`, `scope`,
  content = 'messages_search_source', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `messages_search_insert` AFTER INSERT ON `messages`
WHEN new.`role` IN ('user', 'assistant') AND new.`content` != ''
BEGIN
  INSERT INTO `messages_search` (`rowid`, `content`, `scope`)
    SELECT new.`id`, new.`content`, 's' || hex(s.`pack` || '|' || s.`key`)
    FROM `sessions` s WHERE s.`id` = new.`session_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_search_delete` AFTER DELETE ON `messages`
WHEN old.`role` IN ('user', 'assistant') AND old.`content` != ''
BEGIN
  INSERT INTO `messages_search` (`messages_search`, `rowid`, `content`, `scope`)
    SELECT 'delete', old.`id`, old.`content`, 's' || hex(s.`pack` || '|' || s.`key`)
    FROM `sessions` s WHERE s.`id` = old.`session_id`;
END;
--> statement-breakpoint
INSERT INTO `messages_search` (`messages_search`) VALUES ('rebuild');
