import { startHelp } from '../start-help.ts';
import { DEFAULT_DAYS, MAX_DAYS } from '../usage/days.ts';
import type { CliCommandInfo } from './command.ts';

// What `satchel --help` and each command's `--help` say, kept apart from the commands so
// that neither loads a command's module, let alone its work (STYLE 23): src/cli/commands.ts
// lists them and loads a command only to run it. Each command spreads its own entry.

export const setupInfo: CliCommandInfo = {
  path: ['setup'],
  summary: 'write .env by asking: provider, key, model, Telegram bot, speech-to-text, web search',
  help: `Usage: npx satchel setup [options]

Writes a working .env by asking, the way a first run needs:
  1. the model provider (openai, groq or gemini; openai also means any OpenAI-compatible
     server, named by its base URL) and its API key, checked with one model-list request
     (it costs no tokens); a refused key is asked again;
  2. for a server on this machine or the local network: are its models free? (yes by
     default) If so, its chat models are written at $0 into the owner's catalog
     (SATCHEL_HOME/models.yaml), so the packs' spend caps let them run;
  3. the chat model, picked from the models the key can use, those with a known price first;
  4. optionally the Telegram bot token from @BotFather, checked with getMe, and your numeric
     Telegram id (ALLOWED_USER_IDS), learned by asking you to send the bot any message;
  5. speech-to-text for voice notes, and a web search provider.
In a terminal, ↑/↓ and Enter pick a choice (or type its number or name).
Run again, it updates the file: the current values are the defaults (Enter keeps each), every
variable it does not ask about stays, it prints what it changes, and the old file is kept in
SATCHEL_HOME/backups/. It writes the file readable by you only (0600), adds DASHBOARD_TOKEN
when the file has none, and ends with npx satchel doctor's checklist (exit 0 without a ✗).

Every question has a flag; a question whose flag is given is not asked.
Options:
  --provider NAME        openai, groq or gemini
  --api-key KEY          the provider's key (OPENAI_API_KEY, GROQ_API_KEY or GEMINI_API_KEY)
  --base-url URL         another server: for openai a compatible one, including /v1
                         (e.g. http://127.0.0.1:11434/v1 for Ollama; a key is then optional)
  --free, --not-free     whether the server's models cost nothing (asked for a local server;
                         under --yes a local server counts as free)
  --model NAME           the chat model (LLM_MODEL); it must be one the key can use
  --telegram-token TOKEN the bot token (TELEGRAM_BOT_TOKEN)
  --owner-id ID          your numeric Telegram user id, instead of waiting for your message
  --stt WHO              speech-to-text: groq, openai, off, or the base URL of your own
                         OpenAI-compatible Whisper server (STT_PROVIDER, STT_BASE_URL)
  --stt-model NAME       its model (STT_MODEL; default the provider's, or the server's first)
  --stt-api-key KEY      its key when the chat key does not serve (GROQ_API_KEY, STT_API_KEY)
  --search WHO           web search: brave, tavily, searxng or none (WEB_SEARCH_PROVIDER)
  --search-key KEY       the Brave or Tavily key (BRAVE_API_KEY, TAVILY_API_KEY)
  --search-url URL       your SearXNG instance (SEARXNG_URL)
  --out FILE             the file to write (default: .env in the working directory)
  --yes                  ask nothing: flags, else the file's current values, else defaults
                         (openai, the provider's default model, no Telegram); runs without a
                         terminal, and is the consent to update an existing file. With
                         --telegram-token and no --owner-id it still waits for a message.

Without --yes it needs a terminal: with none it asks nothing and exits 1.
Example, for a script:
  npx satchel setup --yes --provider openai --api-key sk-... --model gpt-4.1-mini`,
};

export const startInfo: CliCommandInfo = {
  path: ['start'],
  summary: 'run the bot (the same as npm start)',
  help: startHelp('npx satchel start'),
};

export const chatInfo: CliCommandInfo = {
  path: ['chat'],
  summary: 'talk to your packs in the terminal (no Telegram token needed)',
  help: `Usage: npx satchel chat [--pack NAME]

Talk to your packs in the terminal, with the configured model and no Telegram token:
the same pipeline as a Telegram chat (routing, the pack's tools, the quota gate, the
ledger). The conversation has its own address (local), so it can run while the bot runs
on the same SATCHEL_HOME. It is how a pack author tries a pack.

Options:
  -p, --pack NAME  talk to this pack (its name or display name); without it, the pack
                   chosen last time, the only one installed, or a numbered choice

In the chat: /help lists the commands, /new starts a fresh session, and when numbered
options are shown, typing a number chooses one. Ctrl-C stops the answer in progress;
Ctrl-C twice or /exit leaves; Ctrl-D (end of input) lets the answer finish and quits. On a
terminal the prompt and notes are coloured (not when piped, nor with NO_COLOR set). Logs
go to SATCHEL_HOME/logs/chat.log.

Exit codes: 0 after the end of input, 1 bad configuration or unknown pack, 2 bad
arguments.`,
};

export const usageInfo: CliCommandInfo = {
  path: ['usage'],
  summary: 'tokens and spend: today, 7 and 30 days, by model, pack and kind',
  help: `Usage: npx satchel usage [--json] [--days N]

Tokens and spend from the ledger in SATCHEL_HOME/satchel.db: today, the last 7 and 30 days
against the caps, per day, by model, by pack, by kind, and the recent turns. The same
numbers as the dashboard. Reads the database read-only: works while satchel runs or not,
and needs no Telegram token or model key (SATCHEL_HOME, SATCHEL_TIMEZONE and the QUOTA_*
caps are read from the environment and .env).

Options:
  --json      print exactly the JSON of the dashboard's GET /api/usage
  --days N    how many days the per-day, model, pack and kind lists cover (1-${MAX_DAYS}, default ${DEFAULT_DAYS})
  -h, --help  show this help
`,
};

export const modelsInfo: CliCommandInfo = {
  path: ['models'],
  summary: 'show the model catalog: prices, images, context and where each came from',
  help: `Usage: npx satchel models

Prints the effective model catalog: the bundled entries (the models satchel's defaults use)
with the owner's file on top (SATCHEL_MODELS, default SATCHEL_HOME/models.yaml), each with
its prices (USD per million tokens; per hour of audio; per search call), whether it takes
images, its context window and where it came from. A model missing here has no price:
under a USD cap its calls are refused (UNKNOWN_PRICE=allow lets them through). Exits 1
when the owner's file is invalid, naming the line and the field.`,
};

export const doctorInfo: CliCommandInfo = {
  path: ['doctor'],
  summary: 'check the configuration, token, providers, packs, MCP servers, database and port',
  help: `Usage: npx satchel doctor [--security [--fix]]

Checks that satchel can run here, without starting it: Node, the configuration (.env and
the environment), the allowlist, the bot token (getMe), each model provider (its model list,
which costs no tokens), the packs, their MCP servers (started, their tools listed as the
model sees them, and stopped), the database and the dashboard port. Prints a checklist
with ✓ (passed), ✗ (failed, with a fix) and ! (worth knowing). Nothing is sent, fetched or
written. Exits 0 when nothing failed, 1 otherwise.

Options:
  --security  check the installation as an attacker would look at it instead: .env and
              SATCHEL_HOME open to other users, the dashboard's binding and token, the
              webhook secret, an empty allowlist, secret-shaped values stored in the
              databases, TOOL_APPROVAL=off, packs that combine web access with external
              tools, withheld MCP tools, and the age of the last backup
  --fix       with --security, apply the safe fixes first (.env 0600, SATCHEL_HOME's
              folders 0700 and files 0600) and say what changed`,
};

export const pairInfo: CliCommandInfo = {
  path: ['pair'],
  summary: 'let in the person a pairing code was given to (as /pair CODE in Telegram)',
  help: `Usage: npx satchel pair CODE

Lets in the person a pairing code was given to (SPEC §18), as the owner's /pair CODE does in
Telegram: with DM_PAIRING=on a stranger who writes to the bot in a private chat gets an
8-character code, valid for an hour. From now on they are allowed as if listed in
ALLOWED_USER_IDS, and they are told so in their chat (through the outbox; when Telegram cannot
be reached now, satchel sends it at its next start). Works while satchel runs or not; reads
SATCHEL_HOME, TELEGRAM_BOT_TOKEN and TELEGRAM_API_ROOT from the environment and .env, and logs
to SATCHEL_HOME/logs/cli.log. /pair in the owner's chat lists pending codes and paired users.

Exit codes: 0 paired, 1 no such code or it expired (or no satchel data), 2 bad arguments.`,
};

export const packValidateInfo: CliCommandInfo = {
  path: ['pack', 'validate'],
  summary: 'check a pack (manifest, skills, schema, migrations) without starting the bot',
  help: `Usage: npx satchel pack validate DIR

Checks the pack in DIR without starting the bot — its manifest, skills, schema and
migrations — and reports every problem found, each with its file and field. When
SATCHEL_HOME already holds this pack's database, its pending migrations are tried on a
copy of it, so a migration that would fail on the real data shows up here.

Exit codes: 0 valid, 1 problems found, 2 bad arguments.`,
};

export const packNewInfo: CliCommandInfo = {
  path: ['pack', 'new'],
  summary: 'create a working pack skeleton to start from',
  help: `Usage: npx satchel pack new NAME [--dir DIR]

Creates a working pack skeleton in ./NAME (or DIR/NAME): pack.yml (checked by editors
through pack.schema.json), SOUL.md, one skill with a command (/notes), schema.sql with one
table, migrations/, templates/USER.md and MEMORY.md, and a first test (tests/notes.yml). It
passes npx satchel pack validate and npx satchel pack test. A running satchel does not load
it until it is installed with npx satchel pack add (or its folder is in SATCHEL_PACKS).

  NAME       the pack's name: [a-z][a-z0-9-]*, at most 32 characters
  --dir DIR  the folder to create it in (default: the current directory)

Exit codes: 0 created, 1 the folder already exists, 2 bad arguments.`,
};

export const packListInfo: CliCommandInfo = {
  path: ['pack', 'list'],
  summary: 'list the installed packs and what is wrong with the broken ones',
  help: `Usage: npx satchel pack list

Lists the packs in the folders of SATCHEL_PACKS (default ./packs) and those installed with
satchel pack add (SATCHEL_HOME/installed-packs): name, version, display name, where an
installed pack came from, and skills (a skill with a command shows it: /name). A pack that cannot load is listed
with every problem found, and a pack whose required settings are unset (SATCHEL_PACK_*, from the
environment or .env) with the variables it misses; satchel would skip either at start.`,
};

export const packTestInfo: CliCommandInfo = {
  path: ['pack', 'test'],
  summary: "run a pack's scripted conversations (tests/*.yml) offline",
  help: `Usage: npx satchel pack test [NAME|DIR ...]

Runs the conversations in each pack's tests/*.yml offline: a scripted model calls the
pack's real tools on a fresh, temporary SATCHEL_HOME at the file's fixed time (now:,
default 2026-01-05T09:00:00Z), and each turn's expectations are checked (reply_contains,
tool_ok, tool_error, db, jobs). One line per test, every unmet expectation with what was
seen instead, then a summary. Without arguments it tests every pack in SATCHEL_PACKS.

  NAME  a pack in the folders of SATCHEL_PACKS
  DIR   the folder of a pack

Exit codes: 0 all tests passed, 1 a test failed or a pack has none, 2 bad arguments.`,
};

export const packAddInfo: CliCommandInfo = {
  path: ['pack', 'add'],
  summary: 'install a pack from a folder, an npm pack .tgz or npm:NAME',
  help: `Usage: npx satchel pack add SOURCE [--yes] [--upgrade [--force]]

Installs a pack into SATCHEL_HOME/installed-packs/<name>/, which satchel always searches
besides SATCHEL_PACKS; it is offered at the next start. SOURCE is
  DIR                     a pack folder
  FILE.tgz                an archive made by npm pack
  npm:NAME[@VERSION]      a package on the npm registry (fetched with npm pack; no
                          install script runs)
The pack is validated before anything is copied. An archive holding anything but plain
files and folders inside the pack, or too big, is refused with nothing written; so is a
folder holding a link that leads outside the pack, or to a folder.

Before anything is copied it prints what the pack may do: its core tools and their effects,
its MCP servers, the settings and secrets it reads, its schedules and the tables it owns;
then it asks "Install NAME VERSION? [y/N]". Without a terminal it asks nothing and refuses,
unless --yes is given. On --upgrade it prints what the new version adds and removes, and
asks only when it adds something.

Options:
  --yes      install without asking (the permissions are still printed)
  --upgrade  replace the installed pack of that name (its migrations run at the next start)
  --force    with --upgrade, allow an older version

Exit codes: 0 installed, 1 refused (or not accepted), 2 bad arguments.`,
};

export const packRemoveInfo: CliCommandInfo = {
  path: ['pack', 'remove'],
  summary: 'remove a pack installed with pack add (its data stays unless --purge)',
  help: `Usage: npx satchel pack remove NAME [--purge]

Removes a pack installed with satchel pack add. Its data (SATCHEL_HOME/packs/NAME/: its
database, notes and files) stays, so adding it again finds it, unless --purge is given.
A pack in a SATCHEL_PACKS folder (the bundled ones in ./packs) is not installed: it is
not removed, and the message says where it is.

Exit codes: 0 removed, 1 refused, 2 bad arguments.`,
};

export const packTrustInfo: CliCommandInfo = {
  path: ['pack', 'trust'],
  summary: "show what changed in a pack's MCP tools since they were pinned, and trust it",
  help: `Usage: npx satchel pack trust PACK [--yes]

Starts the MCP servers of PACK, compares the tools they list with the tools pinned at their
first listing (name, description, input schema and read-only mark), and shows each tool that was added or
changed since: satchel withholds such a tool from the model until it is trusted. Asks
"Trust these changes? [y/N]" and, on yes, pins the tools as they are listed now; a running
satchel offers them from its next turn.

Options:
  --yes  accept without asking (needed when stdin is not a terminal)

Exit codes: 0 trusted or nothing changed, 1 refused or not accepted, 2 bad arguments.`,
};

export const backupInfo: CliCommandInfo = {
  path: ['backup'],
  summary: 'write a consistent .tar.gz backup of the databases, notes and files',
  help: `Usage: npx satchel backup [path]

Writes one .tar.gz archive of SATCHEL_HOME's state: the core database (sessions, messages,
the usage ledger, schedules) and each pack's database, taken with SQLite's online backup
API, so it is safe while satchel runs; each pack's USER.md, MEMORY.md and files/; the packs
installed with \`satchel pack add\` (installed-packs/); the owner's model catalog
(SATCHEL_HOME/models.yaml; a SATCHEL_MODELS file elsewhere is named, not copied); and
documents kept without a pack (media/files/). Cached photos and logs are left out.

path   the archive to write, or a directory to write satchel-backup-<date>-<time>.tar.gz in
       (default: SATCHEL_HOME/backups/<date>-<time>.tar.gz; a backup leaves that folder out)

The archive holds every conversation: it is written readable by its owner only.
Restore it with \`npx satchel restore <archive>\`.`,
};

export const restoreInfo: CliCommandInfo = {
  path: ['restore'],
  summary: 'restore a backup archive into an empty SATCHEL_HOME',
  help: `Usage: npx satchel restore <archive> [--home DIR] [--yes]

Restores an archive written by \`npx satchel backup\` into SATCHEL_HOME, or into DIR with
--home. The target must not exist or be empty: a restore never overwrites data. To replace
a damaged home, stop satchel, move the directory aside, then restore. The whole archive is
checked against its manifest (each file's size and SHA-256; nothing else, no links, no paths
outside the target) and every YAML file against satchel's limits (1 MB, 1,000 entries, 100
aliases) before anything is written, and every database's integrity before anything is
moved into place; a refused or failed restore leaves the target as it was.

Packs installed with \`pack add\` are code that will run here: restore prints what each may
do, as \`pack add\` does, and asks before it writes anything (without a terminal it refuses
unless --yes is given). A "no" writes nothing.

  --yes   accept what the backup's installed packs may do without asking

Then start satchel with SATCHEL_HOME pointing at the restored directory: it has the same
sessions, usage ledger, schedules and pack data as when the backup was taken.`,
};
