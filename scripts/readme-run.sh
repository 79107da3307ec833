#!/usr/bin/env bash
# The README's quick start, run as a newcomer would, in a fresh clone of the committed tree:
# `npm install` (the lock file must stay as committed), `npx satchel setup` (scripted with
# its flags, against the fake model server and Bot API of test/fakes: CI has no keys),
# `npm start`, then the web chat address it prints is opened and sent a message, and satchel
# is stopped through npm's pid. Prints the time of each step. .ci/run runs it.
#
# Two departures from the README, both for a shared CI machine: DASHBOARD_PORT=0 (8787 may
# be taken), and node-gyp pointed at the running Node's headers (scripts/node-gyp-env.sh:
# CI cannot download them).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
fakes_pid=""
start_pid=""
cleanup() {
  [ -n "$start_pid" ] && kill -KILL -- "-$start_pid" 2>/dev/null || true
  [ -n "$fakes_pid" ] && kill "$fakes_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

t0=$SECONDS
step() { echo "readme-run: $1 ($((SECONDS - t0)) s so far)"; }

git clone --quiet "$repo" "$work/satchel"
cd "$work/satchel"
step "cloned $(git rev-parse --short HEAD)"

. scripts/node-gyp-env.sh
t=$SECONDS
npm install --no-audit --no-fund
step "npm install: $((SECONDS - t)) s"
if [ -n "$(git status --porcelain)" ]; then
  git status --porcelain
  echo "readme-run: npm install changed the clone (package-lock.json?)" >&2
  exit 1
fi

node --import tsx scripts/readme-fakes.ts >"$work/fakes.json" &
fakes_pid=$!
for _ in $(seq 1 300); do [ -s "$work/fakes.json" ] && break; sleep 0.1; done
fake() { node -e "process.stdout.write(JSON.parse(require('fs').readFileSync('$work/fakes.json','utf8')).$1)"; }
[ -s "$work/fakes.json" ] || { echo "readme-run: the fake servers did not start" >&2; exit 1; }

export DASHBOARD_PORT=0
t=$SECONDS
TELEGRAM_API_ROOT="$(fake telegramApiRoot)" npx satchel setup --yes --provider openai \
  --api-key "$(fake key)" --base-url "$(fake openaiBaseUrl)" --model gpt-4.1-mini \
  --telegram-token "$(fake token)" --owner-id 111
step "npx satchel setup: $((SECONDS - t)) s"
[ "$(stat -c %a .env)" = 600 ] || { echo "readme-run: .env is not 0600" >&2; exit 1; }

# `npm start`, the web chat opened and sent a message: the `assistant` pack answers it (no
# pack picker), and satchel is stopped through npm's pid. `$1` names the run.
start_and_ask() {
  t=$SECONDS
  : >"$work/start.log"
  setsid npm start >"$work/start.log" 2>&1 &
  start_pid=$!
  url=""
  for _ in $(seq 1 1200); do
    url="$(grep -o 'satchel web chat: http[^ ]*' "$work/start.log" | head -n 1 | cut -d' ' -f4 || true)"
    [ -n "$url" ] && break
    kill -0 "$start_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    cat "$work/start.log"
    echo "readme-run: npm start printed no web chat address" >&2
    exit 1
  fi
  step "$1: npm start to the web chat address: $((SECONDS - t)) s"

  # The page, as a browser opens it (the token moves into a cookie), then a message sent.
  page="$(curl -fsS -L -c "$work/cookies" -b "$work/cookies" "$url")"
  grep -q 'Message' <<<"$page" || { echo "readme-run: the web chat page has no message box" >&2; exit 1; }
  token="${url##*token=}"
  base="${url%%/chat*}"
  code="$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' -d "{\"text\":\"hello from $1\"}" "$base/chat/send")"
  [ "$code" = 202 ] || { echo "readme-run: POST /chat/send answered $code" >&2; exit 1; }
  # The answer, as the page reads it: the conversation's events (the fake model echoes).
  events=""
  for _ in $(seq 1 60); do
    events="$(curl -sS --max-time 1 -H "Authorization: Bearer $token" "$base/chat/events" || true)"
    grep -q "echo: hello from $1" <<<"$events" && break
    sleep 0.5
  done
  if ! grep -q "echo: hello from $1" <<<"$events"; then
    echo "$events" | tail -n 20
    cat "$work/start.log"
    echo "readme-run: no answer from the model in the web chat ($1)" >&2
    exit 1
  fi
  if grep -q 'Which pack' <<<"$events"; then
    echo "readme-run: the first message got the pack picker, not the assistant ($1)" >&2
    exit 1
  fi
  step "$1: web chat page served, a message answered by the assistant"

  # Stopping npm's own pid stops satchel (it watches its parent): the port closes.
  kill -TERM "$start_pid"
  for _ in $(seq 1 300); do
    curl -s -o /dev/null "$base/healthz" || break
    sleep 0.1
  done
  if curl -s -o /dev/null "$base/healthz"; then
    echo "readme-run: satchel still serves after npm start was stopped" >&2
    exit 1
  fi
  start_pid=""
}

start_and_ask "a priced model"

# The README's free server: setup again, now with a model no catalog prices; setup keeps
# the rest of .env and writes the model at $0, so the bundled packs answer with no YAML.
t=$SECONDS
npx satchel setup --yes --base-url "$(fake openaiBaseUrl)" --api-key "$(fake key)" \
  --model llama3.2:3b
step "npx satchel setup again, a local model: $((SECONDS - t)) s"
grep -q '^TELEGRAM_BOT_TOKEN=' .env || { echo "readme-run: setup dropped the bot token" >&2; exit 1; }
grep -q 'openai:llama3.2:3b' data/models.yaml ||
  { echo "readme-run: setup did not write the local model at \$0 into data/models.yaml" >&2; exit 1; }
start_and_ask "a local model"
if [ -n "$(git status --porcelain)" ]; then
  git status --porcelain
  echo "readme-run: the README's commands left files in the checkout" >&2
  exit 1
fi
step "stopped; the README's commands ran in $((SECONDS - t0)) s"
