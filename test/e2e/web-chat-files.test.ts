/**
 * Files sent from the web chat, over its HTTP endpoints: a photo, a document and a voice
 * recording take Telegram's path through the media pipeline (the model sees the picture,
 * the document's text, the transcript), under Telegram's limit and with its words.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { imagesOf, lastUserText } from '../fakes/model-server.ts';
import { ChatClient, shownText, type Upload } from '../support/chat-client.ts';
import { fixturePacks } from '../support/harness.ts';
import { webChatPerTest } from '../support/web-chat.ts';

const web = webChatPerTest();
const { h, connect } = web;

/** Telegram's answer to a file over 20 MB (media-in.test.ts), word for word. */
const TOO_BIG = 'That file is too big for me: I can take files up to 20 MB.';
const LIMIT = 20 * 1024 * 1024;
/** The head of a PNG file: enough for the model's request (nothing decodes it). */
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('picture bytes')]);
/** The head of a WebM file (EBML), as Chromium's MediaRecorder writes one. */
const WEBM = Buffer.concat([Buffer.from('1a45dfa3', 'hex'), Buffer.from('opus frames')]);

/** The app on the fakes (Groq's speech-to-text on the fake model server), signed in. */
function start(env: Record<string, string> = {}, shutdownGraceMs?: number) {
  return web.start(
    ({ model }) => ({
      GROQ_API_KEY: 'gsk-test-groq-key-0123456789',
      GROQ_BASE_URL: model.url,
      ...env,
    }),
    shutdownGraceMs ? { app: { shutdownGraceMs } } : {},
  );
}

const uploadsDir = () => path.join(h!.home, 'media', 'web');
const kept = () => (existsSync(uploadsDir()) ? readdirSync(uploadsDir()) : []);

/** Sends a file over the limit and checks it is refused with Telegram's words. */
async function refusedAsTooBig(c: ChatClient, file: Upload) {
  const refused = await c.upload(file);
  expect(refused.status).toBe(413);
  expect(await refused.json()).toEqual({ error: TOO_BIG });
  return refused;
}

describe('files sent from the web chat', () => {
  it('passes a photo and its caption to the model, and shows it in the conversation, also to a later page', async () => {
    const c = await start();
    const sent = await c.upload({
      kind: 'photo',
      name: 'basil.png',
      type: 'image/png',
      data: PNG,
      caption: 'what plant?',
    });
    expect(sent.status).toBe(202);
    const [reply] = await c.waitForBot(1);

    const [request] = h!.model.chatRequests();
    expect(imagesOf(request!)).toEqual([{ mimeType: 'image/png', data: PNG.toString('base64') }]);
    expect(lastUserText(request!)).toContain('what plant?');
    expect(shownText(reply!)).toContain('what plant?');
    const [shown] = c.entries();
    expect(shown).toMatchObject({
      kind: 'user',
      text: 'what plant?',
      attachment: { kind: 'photo' },
    });

    // The page shows the picture from the chat's own address, behind the token.
    const picture = new URL(`/chat/files/${shown!.attachment!.image}`, c.base);
    const image = await fetch(picture, { headers: { cookie: c.cookie } });
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer())).toEqual(PNG);
    expect((await fetch(picture)).status).toBe(401);
    const later = await ChatClient.open(web.chatUrl);
    await later.connect();
    try {
      expect(later.entries()[0]).toEqual(shown);
    } finally {
      later.close();
    }
    expect(h!.rows('SELECT status FROM edge_inbox')).toEqual([{ status: 'done' }]);
  });

  it('saves a document in the pack workspace and gives the model its text', async () => {
    const c = await start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    const words = Buffer.from('word,meaning\nhaus,house\nbaum,tree\n');
    const sent = await c.upload({
      kind: 'document',
      name: 'words.csv',
      type: 'text/csv',
      data: words,
    });
    expect(sent.status).toBe(202);
    await c.waitForBot(1);

    const said = lastUserText(h!.model.chatRequests()[0]!);
    expect(said).toContain(`"words.csv" (text/csv, ${words.length} bytes)`);
    expect(said).toContain('haus,house');
    const saved = path.join(h!.home, 'packs', 'alpha', 'files', 'words.csv');
    expect(readFileSync(saved)).toEqual(words);
    expect(c.entries()[0]).toMatchObject({ attachment: { kind: 'document', name: 'words.csv' } });
  });

  it('transcribes a recording as Whisper takes it, and the model gets the transcript', async () => {
    const c = await start();
    h!.model.enqueueTranscription({ text: 'remind me to water the basil', duration: 3.2 });
    const sent = await c.upload({
      kind: 'voice',
      name: 'voice',
      type: 'audio/webm;codecs=opus',
      data: WEBM,
      duration: 3,
    });
    expect(sent.status).toBe(202);
    await c.waitForBot(1);

    const [stt] = h!.model.requests({ kind: 'transcription' });
    expect(stt!.body.file).toMatchObject({ filename: 'voice.webm', contentType: 'audio/webm' });
    expect(stt!.body.file.data).toEqual(WEBM);
    const said = lastUserText(h!.model.chatRequests()[0]!);
    expect(said).toMatch(/voice message, transcribed/i);
    expect(said).toContain('remind me to water the basil');
    expect(h!.rows('SELECT kind, audio_seconds FROM usage_events ORDER BY id')).toMatchObject([
      { kind: 'stt', audio_seconds: 3.2 },
      { kind: 'llm' },
    ]);
    expect(c.entries()[0]).toMatchObject({ attachment: { kind: 'voice' } });
  });

  it('answers a photo sent before a crash once, after the restart, and shows it again', async () => {
    const c = await start({}, 300);
    h!.model.enqueue({ hang: true });
    const sent = await c.upload({ kind: 'photo', name: 'a.png', type: 'image/png', data: PNG });
    expect(sent.status).toBe(202);
    await h!.model.waitForRequest(1);
    await h!.stop();
    expect(h!.logs('satchel_stopped')).toMatchObject([{ clean: false }]);

    h!.model.enqueue({ text: 'A basil leaf.' });
    await h!.restart();
    const again = await connect();
    expect((await again.waitForBot(1)).map(shownText)).toEqual(['A basil leaf.']);
    expect(again.entries()[0]).toMatchObject({ kind: 'user', attachment: { kind: 'photo' } });
    const [, retried] = h!.model.chatRequests();
    expect(imagesOf(retried!)).toEqual([{ mimeType: 'image/png', data: PNG.toString('base64') }]);
    expect(h!.rows('SELECT status FROM edge_inbox')).toEqual([{ status: 'done' }]);
  });

  it('refuses a recording Whisper cannot take, before keeping it', async () => {
    const c = await start();
    const sent = await c.upload({ kind: 'voice', name: 'voice', type: 'audio/aac', data: WEBM });
    expect(sent.status).toBe(415);
    expect(kept()).toEqual([]);
    expect(h!.model.requests()).toEqual([]);
  });
});

describe('a file over the limit', () => {
  it("is refused with Telegram's words, by its declared size or as it arrives, and nothing is kept", async () => {
    const c = await start();
    const big = Buffer.alloc(LIMIT + 1, 7);
    const declared = await refusedAsTooBig(c, {
      kind: 'document',
      name: 'big.bin',
      type: 'application/octet-stream',
      data: big,
    });
    // The rest of a refused body is not read: the connection ends with the answer.
    expect(declared.headers.get('connection')).toBe('close');

    // Sent in pieces with no length: cut off once past the limit.
    let sentBytes = 0;
    const piece = Buffer.alloc(1024 * 1024, 7);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sentBytes > 2 * LIMIT) return controller.close();
        sentBytes += piece.length;
        controller.enqueue(piece);
      },
    });
    await refusedAsTooBig(c, { kind: 'photo', name: 'big.png', type: 'image/png', data: stream });

    expect(kept()).toEqual([]);
    expect(h!.rows('SELECT 1 FROM edge_inbox')).toEqual([]);
    expect(c.entries()).toEqual([]);
    expect(h!.model.requests()).toEqual([]);
    // A file of exactly the limit is taken.
    const fits = await c.upload({
      kind: 'document',
      name: 'fits.bin',
      type: 'application/octet-stream',
      data: big.subarray(0, LIMIT),
    });
    expect(fits.status).toBe(202);
    await c.waitForBot(1);
    expect(lastUserText(h!.model.chatRequests()[0]!)).toContain(
      `"fits.bin" (application/octet-stream, ${LIMIT} bytes)`,
    );
  });

  it('refuses an upload another site could forge, and keeps nothing', async () => {
    const c = await start();
    const cases: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of cases) {
      const forged = await c.upload(
        { kind: 'photo', name: 'x.png', type: 'image/png', data: PNG },
        headers,
      );
      expect(forged.status, JSON.stringify(headers)).toBe(403);
    }
    expect(kept()).toEqual([]);
    expect(h!.rows('SELECT 1 FROM edge_inbox')).toEqual([]);
  });
});

/** Every file under the home whose bytes are exactly `data`, relative to the home. */
function copiesOf(data: Buffer): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(h!.home, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (statSync(file).size === data.length && readFileSync(file).equals(data))
      found.push(path.relative(h!.home, file).split(path.sep).join('/'));
  }
  return found.sort();
}

describe('uploads are kept once, with their conversation', () => {
  it('keeps a picture once (where the history names it), a document only in the pack, a recording not at all', async () => {
    const c = await start({ SATCHEL_PACKS: fixturePacks(['alpha']) });
    const { id } = (await c.conversations())[0]!;
    const picture = Buffer.concat([PNG, Buffer.from('kept once')]);
    expect(
      (await c.upload({ kind: 'photo', name: 'a.png', type: 'image/png', data: picture })).status,
    ).toBe(202);
    await c.waitForBot(1);
    const words = Buffer.from('word,meaning\nhaus,house\n');
    expect(
      (await c.upload({ kind: 'document', name: 'words.csv', type: 'text/csv', data: words }))
        .status,
    ).toBe(202);
    await c.waitForBot(2);
    h!.model.enqueueTranscription({ text: 'water the basil', duration: 2 });
    const recording = Buffer.concat([WEBM, Buffer.from('said once')]);
    expect(
      (await c.upload({ kind: 'voice', name: 'voice', type: 'audio/webm', data: recording }))
        .status,
    ).toBe(202);
    await c.waitForBot(3);

    const [kept, ...more] = copiesOf(picture);
    expect(more).toEqual([]);
    expect(kept).toMatch(new RegExp(`^media/web/${id}/[0-9a-f-]{36}\\.png$`));
    // The history names that one copy; the bubble shows it from there.
    const said = h!.rows<{ content: string }>("SELECT content FROM messages WHERE role = 'user'");
    expect(said[0]!.content).toContain(`kept as ${kept}`);
    const shown = c.entries().find((e) => e.attachment?.kind === 'photo')!;
    const image = await fetch(new URL(`/chat/files/${shown.attachment!.image}`, c.base), {
      headers: { cookie: c.cookie },
    });
    expect(Buffer.from(await image.arrayBuffer())).toEqual(picture);
    expect(copiesOf(words)).toEqual(['packs/alpha/files/words.csv']);
    expect(copiesOf(recording)).toEqual([]);
    expect(readdirSync(uploadsDir())).toEqual([id]);
  });

  it('refuses an upload only past 200 MB waiting for answers, never because a turn runs', async () => {
    const c = await start({ LLM_TIMEOUT_MS: '60000', SATCHEL_PACKS: fixturePacks(['alpha']) });
    let release!: () => void;
    h!.model.enqueue({ until: new Promise<void>((r) => (release = r)), text: 'first answer' });
    const file = (i: number) => Buffer.alloc(LIMIT, i);
    const send = (i: number, data = file(i)) =>
      c.upload({ kind: 'document', name: `part-${i}.bin`, type: 'application/octet-stream', data });
    expect((await send(1)).status).toBe(202);
    await h!.model.waitForRequest(1);
    // Ten files of 20 MB wait while the first turn runs: 200 MB, each taken.
    for (let i = 2; i <= 10; i++) expect((await send(i)).status, `file ${i}`).toBe(202);

    const extra = Buffer.from('one byte more than 200 MB waiting');
    const refused = await send(11, extra);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error:
        'The files you sent are still waiting for their answers (200 MB at most). Send this one again once they are answered.',
    });
    expect(copiesOf(extra)).toEqual([]);
    expect(h!.rows('SELECT count(*) AS n FROM edge_inbox')).toEqual([{ n: 10 }]);

    // The first one answered, its file waits no more (the pack keeps its copy): room again.
    release();
    expect(shownText((await c.waitForBot(1))[0]!)).toMatch(/^first answer/);
    expect(copiesOf(file(1))).toEqual(['packs/alpha/files/part-1.bin']);
    expect((await send(11, extra)).status).toBe(202);
  }, 60_000);

  it("removes a conversation's uploads once the conversation is gone, and keeps the others'", async () => {
    const c = await start();
    const { id: kept } = (await c.conversations())[0]!;
    const picture = (text: string) => Buffer.concat([PNG, Buffer.from(text)]);
    await c.upload({ kind: 'photo', name: 'a.png', type: 'image/png', data: picture('stays') });
    await c.waitForBot(1);
    const gone = await c.newConversation();
    c.conversation = gone.id;
    await c.upload({ kind: 'photo', name: 'b.png', type: 'image/png', data: picture('goes') });
    await vi.waitFor(() => expect(h!.model.chatRequests()).toHaveLength(2));
    await vi.waitFor(() =>
      expect(h!.rows("SELECT status FROM edge_inbox WHERE status = 'done'")).toHaveLength(2),
    );
    expect(readdirSync(uploadsDir()).sort()).toEqual([gone.id, kept].sort());

    h!.exec('DELETE FROM web_conversations WHERE id = ?', gone.id);
    await h!.restart();
    expect(readdirSync(uploadsDir())).toEqual([kept]);
    expect(copiesOf(picture('goes'))).toEqual([]);
    expect(copiesOf(picture('stays'))).toHaveLength(1);
    expect(h!.logs('web_uploads_removed')).toMatchObject([{ count: 1 }]);
  });
});
