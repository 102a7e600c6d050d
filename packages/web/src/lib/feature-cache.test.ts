import { afterEach, describe, expect, it, vi } from 'vitest';
import { QueryClient } from '@tanstack/react-query';

/** Each import after a module reset is another tab: its own channel and its own query client. */
async function openTab() {
  vi.resetModules();
  const cache = await import('./feature-cache.ts');
  const broadcast = await import('./cache-broadcast.ts');
  const queryClient = new QueryClient();
  queryClient.setQueryData(cache.FEATURE_CACHE_KEY, [{ name: 'pdf' }]);
  queryClient.setQueryData(['products', 'list', {}], { items: [], totalCount: 0 });
  broadcast.listenAcrossTabs(queryClient);
  return { cache, broadcast, queryClient };
}

const invalidated = (queryClient: QueryClient, key: readonly unknown[]) => queryClient.getQueryState(key)?.isInvalidated ?? false;
const clients: QueryClient[] = [];

afterEach(() => {
  for (const client of clients.splice(0)) client.clear();
});

describe('the feature cache', () => {
  it('is cleared in this tab and in every other tab when a feature changes, products too', async () => {
    const here = await openTab();
    const other = await openTab();
    const third = await openTab();
    clients.push(here.queryClient, other.queryClient, third.queryClient);

    await here.cache.featuresChanged(here.queryClient);

    expect(invalidated(here.queryClient, here.cache.FEATURE_CACHE_KEY)).toBe(true);
    await vi.waitFor(() => expect(invalidated(other.queryClient, other.cache.FEATURE_CACHE_KEY)).toBe(true));
    await vi.waitFor(() => expect(invalidated(third.queryClient, third.cache.FEATURE_CACHE_KEY)).toBe(true));
    expect(invalidated(other.queryClient, ['products', 'list', {}])).toBe(true);
  });

  it('clears the TAN tags of another tab whose TAN page is closed, when TANs change here', async () => {
    const here = await openTab();
    const other = await openTab();
    clients.push(here.queryClient, other.queryClient);
    other.queryClient.setQueryData(['tan-tags'], { items: ['fair'] });
    await here.broadcast.clearAcrossTabs(here.queryClient, [['tans'], ['tan-tags']]);
    await vi.waitFor(() => expect(invalidated(other.queryClient, ['tan-tags'])).toBe(true));
    expect(invalidated(other.queryClient, other.cache.FEATURE_CACHE_KEY)).toBe(false);
  });

  it('keeps other tabs untouched while nothing changes', async () => {
    const here = await openTab();
    const other = await openTab();
    clients.push(here.queryClient, other.queryClient);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(invalidated(other.queryClient, other.cache.FEATURE_CACHE_KEY)).toBe(false);
    expect(invalidated(here.queryClient, here.cache.FEATURE_CACHE_KEY)).toBe(false);
  });
});
