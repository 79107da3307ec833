import { randomBytes } from 'node:crypto';
import { Api } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileTooLargeError, MediaError } from '../../src/core/errors.ts';
import type { FileSource } from '../../src/core/ports.ts';
import {
  createTelegramFileSource,
  DOWNLOAD_FAILED,
  TELEGRAM_DOWNLOAD_LIMIT,
} from '../../src/telegram/files.ts';
import { FakeTelegram, TEST_TOKEN } from '../fakes/telegram-server.ts';
import { refusingRoot } from '../support/dead-hosts.ts';

let fake: FakeTelegram;
let files: FileSource;
const open = () => new AbortController().signal;
/** The secret half of the token: whatever else a message says, never this. */
const SECRET = TEST_TOKEN.split(':')[1]!;

function sourceAt(apiRoot: string): FileSource {
  const api = new Api(TEST_TOKEN, { apiRoot: fake.apiRoot });
  return createTelegramFileSource({ api, apiRoot, token: TEST_TOKEN });
}

beforeEach(async () => {
  fake = await FakeTelegram.start();
  files = sourceAt(fake.apiRoot);
});

afterEach(async () => {
  await fake.stop();
});

/** The rejection of `promise`, which must reject. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

function expectDownloadFailure(error: unknown): void {
  expect(error).toBeInstanceOf(MediaError);
  expect(error).not.toBeInstanceOf(FileTooLargeError);
  expect((error as MediaError).userMessage).toBe(DOWNLOAD_FAILED);
  expect((error as MediaError).message).not.toContain(SECRET);
}

describe('createTelegramFileSource', () => {
  it('downloads a file byte for byte and names its remote path', async () => {
    const bytes = randomBytes(300_000);
    fake.addFile('voice-1', bytes, 'voice/file_1.oga');
    const file = await files.download('voice-1', {
      maxBytes: TELEGRAM_DOWNLOAD_LIMIT,
      signal: open(),
    });
    expect(file.remotePath).toBe('voice/file_1.oga');
    expect(file.data.equals(bytes)).toBe(true);
    expect(fake.calls('getFile').map((c) => c.params.file_id)).toEqual(['voice-1']);
    expect(fake.downloads()).toEqual(['voice/file_1.oga']);
  });

  it('takes a file of exactly maxBytes', async () => {
    fake.addFile('f', Buffer.alloc(1000, 7));
    const file = await files.download('f', { maxBytes: 1000, signal: open() });
    expect(file.data.length).toBe(1000);
  });

  it('refuses a file getFile says is too big, without downloading it', async () => {
    fake.addFile('big', Buffer.alloc(2000));
    const error = await rejection(files.download('big', { maxBytes: 1000, signal: open() }));
    expect(error).toBeInstanceOf(FileTooLargeError);
    expect(error).toMatchObject({ bytes: 2000, maxBytes: 1000, code: 'media_error' });
    expect(fake.calls('getFile')).toHaveLength(1);
    expect(fake.downloads()).toEqual([]);
  });

  it('refuses a file over the Bot API limit on what getFile reports alone', async () => {
    const reported = TELEGRAM_DOWNLOAD_LIMIT + 1;
    fake.addFile('movie', Buffer.from('small body'), { reportedSize: reported });
    const error = await rejection(
      files.download('movie', { maxBytes: TELEGRAM_DOWNLOAD_LIMIT, signal: open() }),
    );
    expect(error).toMatchObject({ bytes: reported, maxBytes: 20 * 1024 * 1024 });
    expect(fake.downloads()).toEqual([]);
  });

  it('takes Telegram’s own "file is too big" answer to getFile as too big', async () => {
    fake.fail('getFile', { status: 400, description: 'Bad Request: file is too big' });
    const error = await rejection(
      files.download('huge', { maxBytes: TELEGRAM_DOWNLOAD_LIMIT, signal: open() }),
    );
    expect(error).toBeInstanceOf(FileTooLargeError);
    expect(error).toMatchObject({ bytes: TELEGRAM_DOWNLOAD_LIMIT + 1 });
    expect(fake.downloads()).toEqual([]);
  });

  it('cuts off a download that grows past maxBytes when getFile gave no size', async () => {
    // 100 kB at 20 kB/s: the whole body would take 5 s; the limit is passed within the first.
    fake.addFile('grows', randomBytes(100_000), {
      reportedSize: null,
      contentLength: false,
      bytesPerSecond: 20_000,
    });
    const error = await rejection(files.download('grows', { maxBytes: 5000, signal: open() }));
    expect(error).toBeInstanceOf(FileTooLargeError);
    expect((error as FileTooLargeError).bytes).toBeGreaterThan(5000);
    expect(fake.downloads()).toEqual(['files/grows']);
    expect(fake.completedDownloads()).toEqual([]);
  });

  it('refuses a download whose Content-Length is over maxBytes', async () => {
    fake.addFile('lies', Buffer.alloc(8000), { reportedSize: 10 });
    const error = await rejection(files.download('lies', { maxBytes: 5000, signal: open() }));
    expect(error).toMatchObject({ bytes: 8000, maxBytes: 5000 });
    expect(error).toBeInstanceOf(FileTooLargeError);
  });

  it('rejects with the signal’s reason when aborted mid-download', async () => {
    fake.addFile('slow', randomBytes(1_000_000), { bytesPerSecond: 10_000 });
    const controller = new AbortController();
    const download = files.download('slow', { maxBytes: 2_000_000, signal: controller.signal });
    await fake.waitForDownload('files/slow');
    const reason = new Error('stopped by the user');
    controller.abort(reason);
    expect(await rejection(download)).toBe(reason);
    expect(fake.completedDownloads()).toEqual([]);
  });

  it('rejects with the signal’s reason when aborted while getFile is pending', async () => {
    fake.addFile('f', Buffer.from('x'));
    fake.delay('getFile', 60_000);
    const controller = new AbortController();
    const download = files.download('f', { maxBytes: 1000, signal: controller.signal });
    await fake.waitForCall('getFile');
    controller.abort(new Error('shutdown'));
    expect(await rejection(download)).toMatchObject({ message: 'shutdown' });
    expect(fake.downloads()).toEqual([]);
  });

  it('does not call Telegram at all when the signal has already fired', async () => {
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    const error = await rejection(files.download('f', { maxBytes: 1, signal: controller.signal }));
    expect(error).toMatchObject({ message: 'too late' });
    expect(fake.calls()).toEqual([]);
  });

  it('turns an unknown file into a MediaError that asks the user to send it again', async () => {
    const error = await rejection(files.download('nope', { maxBytes: 1000, signal: open() }));
    expectDownloadFailure(error);
    expect((error as MediaError).message).toBe('getFile failed: 400: Bad Request: invalid file_id');
  });

  it('turns an expired download link into a MediaError without the token', async () => {
    fake.addFile('old', Buffer.from('gone'), { expired: true });
    const error = await rejection(files.download('old', { maxBytes: 1000, signal: open() }));
    expectDownloadFailure(error);
    expect((error as MediaError).message).toMatch(/HTTP 404/);
  });

  it('keeps the token out of network failures of getFile and of the download', async () => {
    fake.fail('getFile', { status: 'drop' });
    fake.addFile('f', Buffer.from('x'));
    expectDownloadFailure(await rejection(files.download('f', { maxBytes: 10, signal: open() })));

    const refused = sourceAt(await refusingRoot());
    const error = await rejection(refused.download('f', { maxBytes: 10, signal: open() }));
    expectDownloadFailure(error);
    expect((error as MediaError).message).toMatch(/ECONNREFUSED/);

    // fetch quotes a URL it cannot parse, token and all; the message must not.
    const unparsable = sourceAt('http://bad host');
    expectDownloadFailure(
      await rejection(unparsable.download('f', { maxBytes: 10, signal: open() })),
    );
  });
});
