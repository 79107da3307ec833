/** Who asks for a pairing code: a stranger in a private chat, as its edge names them. */
export interface Stranger {
  platform: string;
  userId: string;
  chatId: string;
  name?: string | undefined;
}

/**
 * What a stranger's message earns: a new code, the code they hold already, or nothing
 * (`limited`: they hold 3 codes, or 20 are pending in all).
 */
export type PairingRequest =
  | { kind: 'issued' | 'pending'; code: string; expiresAt: number }
  | {
      kind: 'limited';
      scope: 'user' | 'all';
      /** Pairing just became full (or stayed so a day): what to tell the owner, who holds the codes. */
      tellOwner?: string;
    };

/**
 * Pairing as an edge's gate uses it (SPEC §18): whether the owner paired a user, and a code
 * for a stranger. Kept in the core database (inbound/pairing.ts).
 */
export interface PairingGate {
  isPaired(platform: string, userId: string): boolean;
  request(stranger: Stranger): PairingRequest;
}
