import { randomInt } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import type { PairingRequest, Stranger } from '../core/pairing.ts';
import type { Logger } from '../core/ports.ts';
import { redactSecretShapes } from '../core/redact.ts';
import type { PairedUser, PairingCode, PairingRepo } from '../store/pairing-repo.ts';
import { pairingFullText } from './pairing-notice.ts';

/** How long a code is valid. */
export const PAIRING_TTL_MS = 60 * 60 * 1000;
/** Codes pending at once for one stranger's id, and for everyone together (SPEC §18). */
export const MAX_PENDING_PER_USER = 3;
export const MAX_PENDING = 20;
/** The owner is told that pairing is full at most this often. */
const FULL_TOLD_EVERY_MS = 24 * 60 * 60 * 1000;
/** Capital letters and digits without the look-alikes (0/O, 1/I): read aloud, typed by hand. */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;

type Limited = Extract<PairingRequest, { kind: 'limited' }>;

export type Approval =
  | { ok: true; user: PairedUser }
  | { ok: false; reason: 'unknown' | 'expired'; code: string };

/** A code as the owner may type it: any case, with spaces or a dash in the middle. */
export const normalizeCode = (typed: string): string => typed.toUpperCase().replace(/[\s-]/g, '');

/** A fresh code from the crypto RNG: 8 of 32 symbols, 40 bits. */
export function newCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

export interface PairingDeps {
  repo: PairingRepo;
  clock: Clock;
  log: Logger;
  /** Draws a code (tests pin it); the crypto RNG by default. */
  draw?: () => string;
}

/**
 * Pairing (SPEC §18): strangers who write in a private chat get a code, the owner's
 * approval lets them in. Codes live in the core database (restarts and backups keep them),
 * are valid for an hour and are purged once expired; a stranger keeps the same code while it
 * is valid. At most 3 codes per stranger's id and 20 in all: past that a stranger gets
 * nothing, and the limit is logged once (`pairing_limited`) until codes are given again —
 * so a flood of strangers costs at most 20 replies an hour and no model call. When all 20
 * are taken, the owner is told who holds them (`tellOwner`), at most once a day.
 */
export function createPairing(deps: PairingDeps) {
  const { repo, clock, log } = deps;
  const draw = deps.draw ?? newCode;
  /** Limits already logged (`all`, or a user's key), so a flood logs each once. */
  const limitLogged = new Set<string>();
  /** When the owner was last told that pairing is full. */
  let toldFullAt: number | undefined;

  /**
   * Pairing is full: the owner is told, naming who holds the codes, when it first turns
   * someone away and then at most once a day (a flood that keeps it full says so once).
   */
  function full(stranger: Stranger, now: number): PairingRequest {
    const outcome = limited('all', stranger);
    if (toldFullAt !== undefined && now - toldFullAt < FULL_TOLD_EVERY_MS) return outcome;
    toldFullAt = now;
    const refused = { name: storedName(stranger.name), userId: stranger.userId };
    return { ...outcome, tellOwner: pairingFullText(refused, repo.valid(now), now) };
  }

  function limited(scope: 'user' | 'all', stranger: Stranger): Limited {
    const key = scope === 'all' ? 'all' : `${stranger.platform}:${stranger.userId}`;
    if (!limitLogged.has(key)) {
      limitLogged.add(key);
      log.warn(
        { event: 'pairing_limited', scope, platform: stranger.platform, userId: stranger.userId },
        scope === 'all'
          ? `${MAX_PENDING} pairing codes are pending: strangers get no code until some expire or are used`
          : `this stranger holds ${MAX_PENDING_PER_USER} pending pairing codes: no more are given`,
      );
    }
    return { kind: 'limited', scope };
  }

  /** Stores a fresh code for `stranger`; a code drawn twice is drawn again. */
  function issue(stranger: Stranger, now: number): PairingRequest {
    const expiresAt = now + PAIRING_TTL_MS;
    for (;;) {
      const code = draw();
      const row: PairingCode = {
        code,
        platform: stranger.platform,
        userId: stranger.userId,
        chatId: stranger.chatId,
        name: storedName(stranger.name),
        createdAt: now,
        expiresAt,
      };
      if (repo.insertCode(row)) return { kind: 'issued', code, expiresAt };
    }
  }

  return {
    isPaired: (platform: string, userId: string): boolean => repo.isPaired(platform, userId),

    /** A stranger wrote in a private chat: their code, a new one, or nothing (limits). */
    request(stranger: Stranger): PairingRequest {
      const now = clock.now();
      const outcome = repo.atomically((): PairingRequest => {
        if (repo.purgeExpired(now) > 0) limitLogged.clear();
        const held = repo.validIn(stranger, stranger.chatId, now);
        if (held) return { kind: 'pending', code: held.code, expiresAt: held.expiresAt };
        if (repo.countValid(now, stranger) >= MAX_PENDING_PER_USER)
          return limited('user', stranger);
        if (repo.countValid(now) >= MAX_PENDING) return full(stranger, now);
        return issue(stranger, now);
      });
      if (outcome.kind === 'issued')
        // Who asked and when, never what they wrote.
        log.info(
          {
            event: 'pairing_requested',
            platform: stranger.platform,
            userId: stranger.userId,
            chatId: stranger.chatId,
            expiresAt: outcome.expiresAt,
          },
          'a stranger was given a pairing code for the owner to approve',
        );
      return outcome;
    },

    /** The owner approves `typed`: its stranger is paired, and its codes are gone. */
    approve(typed: string, by: 'command' | 'cli'): Approval {
      const code = normalizeCode(typed);
      const now = clock.now();
      const result = repo.atomically((): Approval => {
        const row = repo.code(code);
        if (!row) return { ok: false, reason: 'unknown', code };
        if (row.expiresAt <= now) {
          repo.deleteCode(code);
          return { ok: false, reason: 'expired', code };
        }
        const user = { ...pick(row), pairedAt: now };
        repo.pair(user);
        return { ok: true, user };
      });
      if (result.ok) {
        limitLogged.clear();
        const { platform, userId, chatId } = result.user;
        log.info(
          { event: 'pairing_approved', platform, userId, chatId, by },
          'the owner paired a user',
        );
      }
      return result;
    },

    /** Takes `userId`'s pairing back; the rows removed (none: they were not paired). */
    remove(userId: string): PairedUser[] {
      const removed = repo.unpair(userId.trim());
      for (const { platform } of removed)
        log.info({ event: 'pairing_removed', platform, userId }, 'the owner removed a pairing');
      return removed;
    },

    /** What `/pair` lists: pending codes (soonest to expire first) and paired users. */
    listing(): { pending: PairingCode[]; paired: PairedUser[]; now: number } {
      const now = clock.now();
      return { pending: repo.valid(now), paired: repo.paired(), now };
    },
  };
}

export type Pairing = ReturnType<typeof createPairing>;

/**
 * A stranger's name as kept and shown to the owner: it is their own text, so kept short and
 * with anything secret-shaped redacted (SPEC §9).
 */
const storedName = (name: string | undefined): string | null =>
  name === undefined ? null : redactSecretShapes(name.slice(0, 64));

const pick = ({ platform, userId, chatId, name }: PairingCode) => ({
  platform,
  userId,
  chatId,
  name,
});
