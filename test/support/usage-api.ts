import type { AppOptions } from '../../src/app.ts';
import type { UsageOverview } from '../../src/usage/overview.ts';
import type { TestHarness } from './harness.ts';

const TOKEN = 'usage-api-dashboard-token-0123';

/** Environment for a harness: as it is, or made from the fake model server's URL. */
export type HarnessEnv = Record<string, string> | ((modelUrl: string) => Record<string, string>);

/**
 * Starts `h` with a known dashboard token and returns a reader of its `GET /api/usage`, which
 * follows the dashboard to its new port after a restart.
 */
export async function startWithUsageApi(
  h: TestHarness,
  env: HarnessEnv = {},
  app: Omit<AppOptions, 'logDestination' | 'announce'> = {},
) {
  let dashboard = '';
  await h.start(
    ({ model }) => ({
      DASHBOARD_TOKEN: TOKEN,
      ...(typeof env === 'function' ? env(model.url) : env),
    }),
    {
      app: {
        ...app,
        announce: (line) => {
          // The web chat's address is announced too; the API is the dashboard's.
          if (line.startsWith('satchel dashboard:'))
            dashboard = line.replace(/^.*?(http\S+?)\?.*$/, '$1');
        },
      },
    },
  );
  return {
    usage: async (): Promise<UsageOverview> => {
      const response = await fetch(`${dashboard}api/usage`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      return (await response.json()) as UsageOverview;
    },
  };
}
