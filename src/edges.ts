import type { Config } from './config/config.ts';
import type { EdgeFactory } from './core/edge.ts';
import { telegramEdge } from './telegram/edge.ts';
import { webEdge } from './web/edge.ts';

/**
 * The edges satchel runs on, each in its own folder: a new channel is one more entry here.
 * Their ingresses are readied, started and stopped in this order. Apart from app.ts so that
 * `satchel doctor`, which runs the edges' checks, loads the edges without the whole app.
 */
export function edgesOf(config: Config): EdgeFactory[] {
  return [telegramEdge(config), webEdge(config)];
}
