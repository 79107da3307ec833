/**
 * Large files (SPEC §18), end to end through the fake Bot API answering as a self-hosted
 * server in `--local` mode: with TELEGRAM_LOCAL_FILES=true a document over Telegram's 20 MB
 * download limit is read from the path getFile names and streamed into the pack's workspace;
 * a path that is relative, outside the server's directory for this bot, a symlink out of it
 * (or that directory itself a symlink) or a directory is refused with a message saying why, and nothing is read or copied.
 * Without the flag the 20 MB limit holds.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  appendFileSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastUserText } from '../fakes/model-server.ts';
import { TEST_TOKEN } from '../fakes/telegram-server.ts';
import { ALLOWED_USER, fixturePacks, harnessPerTest, settled } from '../support/harness.ts';

const h = harnessPerTest();
const MB = 1024 * 1024;
/** The server's `--dir`, and in it the directory of this bot's files (named by its token). */
let serverDir: string;
let botDir: string;

beforeEach(() => {
  serverDir = mkdtempSync(path.join(tmpdir(), 'satchel-bot-api-'));
  botDir = path.join(serverDir, TEST_TOKEN);
  mkdirSync(path.join(botDir, 'documents'), { recursive: true });
});
afterEach(() => rmSync(serverDir, { recursive: true, force: true }));

/** A file of `mb` megabytes of random data, written in 1 MB pieces. */
function bigFile(file: string, mb: number): void {
  const piece = randomBytes(MB);
  writeFileSync(file, '');
  for (let i = 0; i < mb; i++) appendFileSync(file, piece);
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}

const workspace = () => path.join(h.home, 'packs', 'alpha', 'files');
const startLocal = (flag: 'true' | 'false' = 'true') =>
  h.start({ SATCHEL_PACKS: fixturePacks(['alpha']), TELEGRAM_LOCAL_FILES: flag });

/** The user sends a document whose getFile answers `filePath`. */
function sendDocument(fileId: string, filePath: string, fileName: string): void {
  h.tg.addLocalFile(fileId, filePath);
  h.tg.document({ userId: ALLOWED_USER, fileId, fileName });
}

/**
 * A 25 MB file at `relative` in the bot's directory that getFile names for `fileId`, and the
 * model's answer to the turn it comes in. Returns its path.
 */
function localBigFile(fileId: string, relative: string, answer: string): string {
  const source = path.join(botDir, relative);
  mkdirSync(path.dirname(source), { recursive: true });
  bigFile(source, 25);
  h.tg.addLocalFile(fileId, source);
  h.model.enqueue({ text: answer });
  return source;
}

describe('large files from a self-hosted Bot API server', () => {
  it('copies a 25 MB document from the path getFile names into the workspace', async () => {
    await startLocal();
    const source = path.join(botDir, 'documents', 'file_7.bin');
    bigFile(source, 25);
    h.model.enqueue({ text: 'Got the archive.' });
    sendDocument('big', source, 'backup.bin');
    await settled(h, 1);

    const copy = path.join(workspace(), 'backup.bin');
    expect(statSync(copy).size).toBe(25 * MB);
    expect(await sha256(copy)).toBe(await sha256(source));
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    // Read from disk: nothing was downloaded over HTTP.
    expect(h.tg.downloads()).toEqual([]);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['Got the archive.\n\n✓ backup.bin saved']);
    const [request] = h.model.chatRequests();
    expect(lastUserText(request!)).toContain(
      `"backup.bin" (application/octet-stream, ${25 * MB} bytes), saved in the pack workspace as files/backup.bin`,
    );
    // The server's path holds the bot token: it reaches neither the model nor the logs.
    expect(JSON.stringify(request!.body)).not.toContain(TEST_TOKEN);
    expect(JSON.stringify(h.logs())).not.toContain(TEST_TOKEN.split(':')[1]);
  });

  it('keeps a 25 MB audio file in the workspace instead of transcribing it', async () => {
    await startLocal();
    localBigFile('talk', 'music/file_9.mp3', 'Saved the recording.');
    h.tg.audio({
      userId: ALLOWED_USER,
      fileId: 'talk',
      fileName: 'talk.mp3',
      mimeType: 'audio/mpeg',
    });
    await settled(h, 1);

    expect(statSync(path.join(workspace(), 'talk.mp3')).size).toBe(25 * MB);
    expect(h.tg.texts(ALLOWED_USER)).toEqual(['Saved the recording.\n\n✓ talk.mp3 saved']);
    expect(lastUserText(h.model.chatRequests()[0]!)).toContain(
      `"talk.mp3" (audio/mpeg, ${25 * MB} bytes)`,
    );
  });

  it('saves a 25 MB video like a document, under a made-up name, with its caption', async () => {
    await startLocal();
    const source = localBigFile('clip', 'videos/file_3.mp4', 'Saved the clip.');
    h.tg.video({ userId: ALLOWED_USER, fileId: 'clip', caption: 'our hike' });
    await settled(h, 1);

    // Telegram names no file for most videos: the name is made from the message id (the
    // chat's first) and the mime type.
    const name = 'video-1.mp4';
    const copy = path.join(workspace(), name);
    expect(await sha256(copy)).toBe(await sha256(source));
    expect(h.tg.downloads()).toEqual([]);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([`Saved the clip.\n\n✓ ${name} saved`]);
    const said = lastUserText(h.model.chatRequests()[0]!);
    expect(said).toContain(
      `"${name}" (video/mp4, ${25 * MB} bytes), saved in the pack workspace as files/${name}`,
    );
    expect(said).toContain('our hike');
  });

  it('still refuses videos without TELEGRAM_LOCAL_FILES', async () => {
    await startLocal('false');
    h.tg.video({ userId: ALLOWED_USER, caption: 'our hike' });
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      "I can't watch videos yet. Tell me in words what it shows, or send a photo or a voice message.",
    ]);
    expect(h.model.chatRequests()).toEqual([]);
  });

  it('refuses a relative path, one outside the bot directory, a symlink out of it and a directory', async () => {
    await startLocal();
    const outside = path.join(serverDir, 'other', 'secret.txt');
    mkdirSync(path.dirname(outside));
    writeFileSync(outside, 'not for satchel');
    symlinkSync(outside, path.join(botDir, 'documents', 'link.txt'));
    const cases: [string, string, RegExp][] = [
      ['rel', 'documents/file_1.txt', /gave a relative path/],
      ['out', outside, /outside its directory for this bot/],
      ['dots', `${botDir}/../other/secret.txt`, /outside its directory for this bot/],
      ['link', path.join(botDir, 'documents', 'link.txt'), /outside its directory for this bot/],
      ['dir', path.join(botDir, 'documents'), /not a regular file/],
    ];
    for (const [i, [fileId, filePath]] of cases.entries()) {
      sendDocument(fileId, filePath, `${fileId}.txt`);
      await settled(h, i + 1);
    }

    const said = h.tg.texts(ALLOWED_USER);
    expect(said).toHaveLength(cases.length);
    for (const [i, [, , why]] of cases.entries()) {
      expect(said[i]).toMatch(/^I could not take that file: the Bot API server /);
      expect(said[i]).toMatch(why);
      expect(said[i]).toMatch(/Nothing was copied\.$/);
    }
    expect(h.model.chatRequests()).toEqual([]);
    expect(readdirSync(workspace())).toEqual([]);
  });

  it('refuses every file when the folder named by the token is itself a link out (to /etc)', async () => {
    await startLocal();
    const etc = path.join(serverDir, 'etc');
    mkdirSync(etc);
    writeFileSync(path.join(etc, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    rmSync(botDir, { recursive: true });
    symlinkSync(etc, botDir);
    sendDocument('passwd', path.join(botDir, 'passwd'), 'passwd.txt');
    await settled(h, 1);

    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      'I could not take that file: the Bot API server gave a path outside its directory for this bot, so I did not read it. Nothing was copied.',
    ]);
    expect(h.model.chatRequests()).toEqual([]);
    expect(readdirSync(workspace())).toEqual([]);
  });

  it('keeps the 20 MB limit without TELEGRAM_LOCAL_FILES', async () => {
    await startLocal('false');
    const source = path.join(botDir, 'documents', 'file_8.bin');
    bigFile(source, 25);
    sendDocument('big', source, 'backup.bin');
    await settled(h, 1);
    expect(h.tg.texts(ALLOWED_USER)).toEqual([
      'That file is too big for me: I can take files up to 20 MB.',
    ]);
    expect(h.model.chatRequests()).toEqual([]);
    expect(h.tg.downloads()).toEqual([]);
  });
});
