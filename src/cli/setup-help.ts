/** `satchel setup --help`. */
export const SETUP_HELP = `Usage: npx satchel setup [options]

Writes a working .env by asking, the way a first run needs:
  1. the model provider (openai, groq or gemini; openai also means any OpenAI-compatible
     server, named by its base URL) and its API key, checked with one model-list request
     (it costs no tokens);
  2. the chat model, picked from the models the key can use, those with a known price first
     (the bundled packs' spend caps need a price);
  3. optionally the Telegram bot token from @BotFather, checked with getMe;
  4. your numeric Telegram id (ALLOWED_USER_IDS), learned by asking you to send the bot any
     message: only updates up to that message are acknowledged, later ones stay for the bot.
It writes the file readable by you only (0600), never replaces an existing one without
asking (the old one is kept as .bak), and ends with npx satchel doctor's checklist. A
refused key or token stops it with exit 1 and nothing written.

Every question has a flag; a question whose flag is given is not asked.
Options:
  --provider NAME        openai, groq or gemini
  --api-key KEY          the provider's key (OPENAI_API_KEY, GROQ_API_KEY or GEMINI_API_KEY)
  --base-url URL         another server: for openai a compatible one, including /v1
                         (e.g. http://127.0.0.1:11434/v1 for Ollama; a key is then optional)
  --model NAME           the chat model (LLM_MODEL); it must be one the key can use
  --telegram-token TOKEN the bot token (TELEGRAM_BOT_TOKEN)
  --owner-id ID          your numeric Telegram user id, instead of waiting for your message
  --out FILE             the file to write (default: .env in the working directory)
  --yes                  ask nothing: flags, or defaults (openai, the provider's default
                         model, no Telegram); runs without a terminal. With
                         --telegram-token and no --owner-id it still waits for a message.
                         An existing file is never replaced under --yes.

Without --yes it needs a terminal: with none it asks nothing and exits 1.
Example, for a script:
  npx satchel setup --yes --provider openai --api-key sk-... --model gpt-4.1-mini`;
