import type {
  AnsweredTurn,
  Edge,
  EdgeDeps,
  EdgeFactory,
  Ingress,
  IngressPort,
} from '../core/edge.ts';
import type { Inboxes } from '../core/inbox.ts';
import type { Db } from '../store/client.ts';
import { createEdgeInboxRepo } from '../store/edge-inbox-repo.ts';
import { createInboxRepo } from '../store/inbox-repo.ts';

/** The inboxes the core database holds, as the edges' ingresses are given them. */
export function storeInboxes(db: Db): Inboxes {
  return {
    keyed: (platform) => createEdgeInboxRepo(db, platform),
    numbered: () => createInboxRepo(db),
  };
}

/**
 * What the core gives each edge's ingress: the pipeline's entry, the menu, the packs and
 * which one answers where, its outbox's nudge. `/pair` is in the menu only when an edge
 * gates strangers (SPEC §18): without one nobody can ask for a code (the web chat alone).
 */
export function ingressPort(
  pipeline: Pick<IngressPort, 'accept' | 'full' | 'menu'>,
  routing: Pick<IngressPort, 'packs' | 'activePack' | 'transcribes' | 'defaultPack'>,
  outbox: { retryNow(platform: string): void },
  onFatal: ((error: unknown) => void) | undefined,
  turns: {
    /** Every turn answered, on any edge (`turn_completed`, not a job's run). */
    answered(listener: (turn: AnsweredTurn) => void): void;
    title: IngressPort['title'];
    models: IngressPort['models'];
  },
  edges: ReadonlyMap<string, Edge> = new Map(),
) {
  const strangers = [...edges.values()].some((edge) => edge.gate !== undefined);
  const menu = () =>
    strangers ? pipeline.menu() : pipeline.menu().filter((m) => m.command !== 'pair');
  return (edge: Edge): IngressPort => ({
    answered: (listener) =>
      turns.answered((turn) => {
        if (turn.address.platform === edge.platform) listener(turn);
      }),
    title: (turn, signal) => turns.title(turn, signal),
    models: (address, signal) => turns.models(address, signal),
    accept: (event) => pipeline.accept(event),
    full: (address) => pipeline.full(address),
    menu,
    packs: () => routing.packs(),
    activePack: (address) => routing.activePack(address),
    transcribes: () => routing.transcribes(),
    defaultPack: () => routing.defaultPack?.(),
    reachable: () => outbox.retryNow(edge.platform),
    fatal: (error) => onFatal?.(error),
  });
}

/** Connects each edge, by platform, in the order listed. */
export function connectEdges(factories: readonly EdgeFactory[], deps: EdgeDeps): Map<string, Edge> {
  const edges = new Map<string, Edge>();
  for (const factory of factories) {
    const edge = factory.connect(deps);
    edges.set(edge.platform, edge);
  }
  return edges;
}

/**
 * Each edge's ingress, opened on the pipeline (in the order the edges were listed, so the
 * job edge, added last, starts last), and their lifecycle: `ready`, `start` and `stop` go
 * through every edge in that order (see Ingress).
 */
export function openIngresses(edges: ReadonlyMap<string, Edge>, port: (edge: Edge) => IngressPort) {
  const opened = [...edges.values()].flatMap((edge) =>
    edge.ingress ? [{ platform: edge.platform, ingress: edge.ingress(port(edge)) }] : [],
  );
  const ingresses: Ingress[] = opened.map((o) => o.ingress);
  return {
    ingresses,
    /** Each ingress's health, under its edge's platform (its section of `/healthz`). */
    health: opened.map(({ platform, ingress }) => ({
      platform,
      ...(ingress.health ? { health: () => ingress.health!() } : {}),
    })),
    mounts: ingresses.flatMap((ingress) => ingress.mounts ?? []),
    ready(): void {
      for (const ingress of ingresses) ingress.ready?.();
    },
    async start(): Promise<void> {
      for (const ingress of ingresses) await ingress.start?.();
    },
    async stop(): Promise<void> {
      for (const ingress of ingresses) await ingress.stop?.();
    },
  };
}
