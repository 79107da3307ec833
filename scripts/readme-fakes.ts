/**
 * The fake model server and Bot API that scripts/readme-run.sh points the README's commands
 * at (a CI machine has no keys and no network to spend them on): the model server takes
 * only README_KEY as OpenAI's key, and the Bot API takes the fakes' test token. Prints one
 * line of JSON with their addresses, then serves until SIGTERM or SIGINT.
 */
import { FakeModel } from '../test/fakes/model-server.ts';
import { FakeTelegram, TEST_TOKEN } from '../test/fakes/telegram-server.ts';

const key = process.env.README_KEY ?? 'sk-readme-run-key-0123456789';
const model = await FakeModel.start();
model.requireKey('openai', key);
// A server that offers a priced model and a local one (README: "Ollama, free").
model.setModels('openai', ['gpt-4.1-mini', 'llama3.2:3b']);
const telegram = await FakeTelegram.start();
console.log(
  JSON.stringify({
    openaiBaseUrl: `${model.url}/v1`,
    telegramApiRoot: telegram.apiRoot,
    token: TEST_TOKEN,
    key,
  }),
);

const stop = async () => {
  await Promise.all([model.stop(), telegram.stop()]);
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
