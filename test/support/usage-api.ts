import type { AppOptions } from '../../src/app.ts';
import type { UsageOverview } from '../../src/usage/overview.ts';

/**
 * The dashboard's `GET /api/usage` of an app started with `env` and `app` (as given to
 * `h.start`): the address is taken from the app's announcement, the token from the env.
 */
export function usageApi(token: string) {
  let dashboard = '';
  return {
    env: { DASHBOARD_TOKEN: token },
    app: {
      announce: (line: string) => {
        // The web chat's address is announced too; the API is the dashboard's.
        if (line.startsWith('satchel dashboard:'))
          dashboard = line.replace(/^.*?(http\S+?)\?.*$/, '$1');
      },
    } satisfies Omit<AppOptions, 'logDestination'>,
    async get(): Promise<UsageOverview> {
      const response = await fetch(`${dashboard}api/usage`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return (await response.json()) as UsageOverview;
    },
  };
}
