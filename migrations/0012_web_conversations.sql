-- web_conversations: the web chat's conversations are its own (SPEC §16), ids `w-…` that do not
-- depend on ALLOWED_USER_IDS. Each web chat id used so far (the owner's id: `1`, then `1001`
-- once the allowlist was set) becomes a conversation `w-<old id>` with its route, sessions
-- (and their search index), jobs, outbox rows, ledger rows and stored input. The most
-- recently used keeps its name; the others are titled "Earlier: …" so nothing is lost.
CREATE TABLE `web_conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`titled` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `web_conversations_updated` ON `web_conversations` (`updated_at`);--> statement-breakpoint
CREATE TABLE `__web_moves` (`old` text PRIMARY KEY NOT NULL, `new` text NOT NULL, `used_at` integer NOT NULL);
--> statement-breakpoint
INSERT INTO `__web_moves` (`old`, `new`, `used_at`)
  SELECT `chat`, 'w-' || `chat`, max(`at`) FROM (
    SELECT `chat_id` AS `chat`, `updated_at` AS `at` FROM `conversation_routes` WHERE `platform` = 'web'
    UNION ALL
    SELECT substr(s.`address`, 5),
      coalesce((SELECT max(m.`created_at`) FROM `messages` m WHERE m.`session_id` = s.`id`), s.`created_at`)
    FROM `sessions` s WHERE s.`address` LIKE 'web:%'
    UNION ALL
    SELECT `chat_id`, `created_at` FROM `jobs` WHERE `platform` = 'web' AND `chat_id` IS NOT NULL
    UNION ALL
    SELECT `chat_id`, `created_at` FROM `outbox` WHERE `channel` = 'web'
    UNION ALL
    SELECT CAST(json_extract(`payload`, '$.address.chatId') AS TEXT), `received_at` FROM `edge_inbox`
    WHERE `platform` = 'web' AND json_valid(`payload`) AND json_extract(`payload`, '$.address.chatId') IS NOT NULL
  ) WHERE `chat` IS NOT NULL AND `chat` NOT LIKE 'w-%' GROUP BY `chat`;
--> statement-breakpoint
INSERT INTO `web_conversations` (`id`, `title`, `titled`, `created_at`, `updated_at`)
  SELECT w.`new`,
    CASE WHEN w.`old` = (SELECT `old` FROM `__web_moves` ORDER BY `used_at` DESC, `old` DESC LIMIT 1)
      THEN '' ELSE 'Earlier: ' END ||
    coalesce((SELECT substr(trim(replace(m.`content`, char(10), ' ')), 1, 60) FROM `messages` m
      JOIN `sessions` s ON s.`id` = m.`session_id`
      WHERE s.`address` = 'web:' || w.`old` AND s.`kind` = 'chat' AND m.`role` = 'user' AND trim(m.`content`) != ''
      ORDER BY m.`id` LIMIT 1), 'Web chat ' || w.`old`),
    1, w.`used_at`, w.`used_at`
  FROM `__web_moves` w;
--> statement-breakpoint
INSERT INTO `messages_search` (`messages_search`, `rowid`, `content`, `scope`)
  SELECT 'delete', m.`id`, m.`content`, 's' || hex(s.`pack` || '|' || s.`key`)
  FROM `messages` m JOIN `sessions` s ON s.`id` = m.`session_id`
  WHERE substr(s.`address`, 5) IN (SELECT `old` FROM `__web_moves`) AND s.`address` LIKE 'web:%'
    AND m.`role` IN ('user', 'assistant') AND m.`content` != '';
--> statement-breakpoint
UPDATE `sessions` SET `key` = 'web:' || (SELECT `new` FROM `__web_moves` WHERE `old` = substr(`address`, 5))
  || substr(`key`, length(`address`) + 1)
WHERE `address` LIKE 'web:%' AND substr(`address`, 5) IN (SELECT `old` FROM `__web_moves`)
  AND substr(`key`, 1, length(`address`) + 1) = `address` || ':';
--> statement-breakpoint
UPDATE `sessions` SET `key` = substr(`key`, 1, length(`key`) - length(`address`))
  || 'web:' || (SELECT `new` FROM `__web_moves` WHERE `old` = substr(`address`, 5))
WHERE `address` LIKE 'web:%' AND substr(`address`, 5) IN (SELECT `old` FROM `__web_moves`)
  AND `key` LIKE 'job:%' AND substr(`key`, length(`key`) - length(`address`)) = ':' || `address`;
--> statement-breakpoint
UPDATE `sessions` SET `address` = 'web:' || (SELECT `new` FROM `__web_moves` WHERE `old` = substr(`address`, 5))
WHERE `address` LIKE 'web:%' AND substr(`address`, 5) IN (SELECT `old` FROM `__web_moves`);
--> statement-breakpoint
INSERT INTO `messages_search` (`rowid`, `content`, `scope`)
  SELECT m.`id`, m.`content`, 's' || hex(s.`pack` || '|' || s.`key`)
  FROM `messages` m JOIN `sessions` s ON s.`id` = m.`session_id`
  WHERE s.`address` IN (SELECT 'web:' || `new` FROM `__web_moves`)
    AND m.`role` IN ('user', 'assistant') AND m.`content` != '';
--> statement-breakpoint
UPDATE `conversation_routes`
SET `chat_id` = (SELECT `new` FROM `__web_moves` WHERE `old` = `chat_id`),
  `address` = 'web:' || (SELECT `new` FROM `__web_moves` WHERE `old` = `chat_id`)
WHERE `platform` = 'web' AND `chat_id` IN (SELECT `old` FROM `__web_moves`);
--> statement-breakpoint
UPDATE `jobs` SET
  `manifest_key` = CASE WHEN `manifest_key` LIKE '%:web:' || `chat_id`
    THEN substr(`manifest_key`, 1, length(`manifest_key`) - length(`chat_id`))
      || (SELECT `new` FROM `__web_moves` WHERE `old` = `chat_id`)
    ELSE `manifest_key` END,
  `chat_id` = (SELECT `new` FROM `__web_moves` WHERE `old` = `chat_id`)
WHERE `platform` = 'web' AND `chat_id` IN (SELECT `old` FROM `__web_moves`);
--> statement-breakpoint
UPDATE `outbox` SET `chat_id` = (SELECT `new` FROM `__web_moves` WHERE `old` = `chat_id`)
WHERE `channel` = 'web' AND `chat_id` IN (SELECT `old` FROM `__web_moves`);
--> statement-breakpoint
UPDATE `usage_events` SET `chat_id` = (SELECT `new` FROM `__web_moves` WHERE `old` = `chat_id`)
WHERE `chat_id` IN (SELECT `old` FROM `__web_moves`)
  AND `session_id` IN (SELECT `id` FROM `sessions` WHERE `address` IN (SELECT 'web:' || `new` FROM `__web_moves`));
--> statement-breakpoint
UPDATE `edge_inbox` SET `payload` = json_set(`payload`, '$.address.chatId',
  (SELECT `new` FROM `__web_moves` WHERE `old` = CAST(json_extract(`payload`, '$.address.chatId') AS TEXT)))
WHERE `platform` = 'web' AND json_valid(`payload`)
  AND CAST(json_extract(`payload`, '$.address.chatId') AS TEXT) IN (SELECT `old` FROM `__web_moves`);
--> statement-breakpoint
DROP TABLE `__web_moves`;
