import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { localServer } from '../../src/setup/local-server.ts';
import { type Choice, createPrompter } from '../../src/setup/prompter.ts';

const CHOICES: Choice[] = [
  { value: 'openai', note: 'OpenAI' },
  { value: 'groq', note: 'Groq' },
  { value: 'gemini', note: 'Gemini' },
];

/** A prompter on a terminal (raw mode and all) or a pipe, and what it printed. */
function session(tty: boolean) {
  const stdin = new PassThrough();
  if (tty) Object.assign(stdin, { isTTY: true, setRawMode: () => stdin });
  let out = '';
  const stdout = new PassThrough();
  stdout.on('data', (chunk) => {
    out += String(chunk);
  });
  const prompter = createPrompter({ stdin, stdout });
  return { stdin, prompter, out: () => out };
}

/** Types `keys` once the question is on the screen. */
async function typeWhenAsked(s: ReturnType<typeof session>, keys: string[]): Promise<void> {
  while (!s.out().includes('[')) await new Promise((r) => setTimeout(r, 5));
  for (const key of keys) s.stdin.write(key);
}

const DOWN = '\x1b[B';
const UP = '\x1b[A';

describe('setup choices', () => {
  it('on a terminal, ↓ and ↑ move the pick shown in the question and Enter takes it', async () => {
    const s = session(true);
    const picked = s.prompter.choose('Model provider', CHOICES);
    await typeWhenAsked(s, [DOWN, DOWN, UP, DOWN, '\r']);
    expect(await picked).toBe('gemini');
    // Each move redrew the question with the current pick.
    expect(s.out()).toContain('Enter: groq]');
    expect(s.out()).toContain('Enter: gemini]');
    expect(s.out()).toContain('↑/↓ and Enter, or a number or name');
    s.prompter.close();
  });

  it('↑ from the first wraps to the last; a typed number still wins over the pick', async () => {
    const s = session(true);
    const wrapped = s.prompter.choose('Model provider', CHOICES);
    await typeWhenAsked(s, [UP, '\r']);
    expect(await wrapped).toBe('gemini');
    const typed = s.prompter.choose('Again', CHOICES, { fallback: 2 });
    s.stdin.write(`${DOWN}2\r`);
    expect(await typed).toBe('groq');
    s.prompter.close();
  });

  it('↑ never brings back an earlier answer (a key typed before)', async () => {
    const s = session(true);
    const secret = s.prompter.askSecret('key: ');
    s.stdin.write('sk-secret\r');
    expect(await secret).toBe('sk-secret');
    const picked = s.prompter.choose('Model provider', CHOICES);
    await typeWhenAsked(s, [UP, UP, '\r']);
    expect(await picked).toBe('groq');
    expect(s.out()).not.toContain('sk-secret');
    s.prompter.close();
  });

  it('on a pipe, a number or a name is read from a line; Enter takes the default; anything else asks again', async () => {
    const s = session(false);
    const picked = s.prompter.choose('Model provider', CHOICES, { fallback: 1 });
    s.stdin.write('mistral\nGEMINI\n');
    expect(await picked).toBe('gemini');
    expect(s.out()).toContain('"mistral" is not one of them.');
    expect(s.out()).toContain('   1) openai  OpenAI\n');
    const fallback = s.prompter.choose('Again', CHOICES, { fallback: 1 });
    s.stdin.write('\n');
    expect(await fallback).toBe('groq');
    s.prompter.close();
  });
});

describe('a server of your own', () => {
  it('loopback, private, link-local, unique-local and .local are local; public hosts are not', () => {
    expect(localServer('http://127.0.0.1:11434/v1')).toBe('this machine');
    expect(localServer('http://localhost:1234/v1')).toBe('this machine');
    expect(localServer('http://[::1]:8000/v1')).toBe('this machine');
    expect(localServer('http://192.168.1.20:11434/v1')).toBe('your network');
    expect(localServer('http://10.0.0.5/v1')).toBe('your network');
    expect(localServer('http://172.20.1.1/v1')).toBe('your network');
    expect(localServer('http://169.254.3.4/v1')).toBe('your network');
    expect(localServer('http://[fd12::1]/v1')).toBe('your network');
    expect(localServer('http://gpu-box.local:11434/v1')).toBe('your network');
    expect(localServer('https://openrouter.ai/api/v1')).toBeUndefined();
    expect(localServer('http://8.8.8.8/v1')).toBeUndefined();
    expect(localServer(undefined)).toBeUndefined();
  });
});
