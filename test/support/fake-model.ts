import { afterAll, beforeAll, beforeEach } from 'vitest';
import { FakeModel } from '../fakes/model-server.ts';

/**
 * One fake model server for a test file (or the describe it is called in): started before
 * its tests, emptied before each (script, recorded requests, keys) and stopped after them.
 * The handle stands for the server once it has started: use it inside tests and hooks.
 */
export function useFakeModel(): FakeModel {
  let started: FakeModel | undefined;
  beforeAll(async () => {
    started = await FakeModel.start();
  });
  afterAll(() => started?.stop());
  beforeEach(() => started?.reset());
  return new Proxy({} as FakeModel, {
    get(_, key) {
      if (!started) throw new Error('useFakeModel: the fake model starts before the tests');
      const value = Reflect.get(started, key, started);
      return typeof value === 'function' ? value.bind(started) : value;
    },
  });
}
