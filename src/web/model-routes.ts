import type { IngressPort } from '../core/edge.ts';
import type { Answer } from './conversation-routes.ts';
import { addressOf, type Conversations } from './conversations.ts';
import type { WebInput } from './input.ts';

export interface ModelRoutesDeps {
  conversations: Pick<Conversations, 'get'>;
  port: Pick<IngressPort, 'models'>;
  input: Pick<WebInput, 'pickModel'>;
}

const answer = (status: number, body: unknown): Answer => ({ status, body });
const NO_SUCH = answer(404, { error: 'There is no such conversation.' });

/**
 * The model picker in the chat's header (SPEC §16): `GET /chat/models?c=` — the models the
 * configured providers offer, as `/model` lists them (`{models: [{ref, price?}], current,
 * picked}`) — and `POST /chat/model` (`{conversation, ref}`, `ref` an offered model or
 * `default`), which does what pressing that `/model` button does: the pick is saved and
 * satchel says which model answers now.
 */
export function createModelRoutes(deps: ModelRoutesDeps) {
  const shown = (id: unknown) =>
    typeof id === 'string' && deps.conversations.get(id) ? id : undefined;

  return {
    async get(query: URLSearchParams): Promise<Answer> {
      const id = shown(query.get('c'));
      if (!id) return NO_SUCH;
      const { offered, current, picked } = await deps.port.models(addressOf(id));
      return answer(200, { models: offered, current, picked });
    },

    async post(body: Record<string, unknown>): Promise<Answer> {
      const id = shown(body.conversation);
      if (!id) return NO_SUCH;
      const { ref } = body;
      if (typeof ref !== 'string') return answer(400, { error: 'Name a model.' });
      const { offered } = await deps.port.models(addressOf(id));
      if (ref !== 'default' && !offered.some((m) => m.ref === ref))
        return answer(409, { error: `${ref} is not offered here.` });
      deps.input.pickModel(addressOf(id), ref);
      return answer(202, { ok: true });
    },
  };
}

export type ModelRoutes = ReturnType<typeof createModelRoutes>;
