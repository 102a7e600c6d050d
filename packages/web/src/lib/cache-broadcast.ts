import type { QueryClient } from '@tanstack/react-query';

/**
 * Caches cleared across browser tabs (spec section 4): a tab that changes data posts the query keys
 * it dropped, and every other tab of the app drops them too. Each tab listens from its start, so a
 * cache that no open page shows is cleared as well. Browsers without BroadcastChannel simply keep
 * their caches until they expire.
 */
const CHANNEL_NAME = 'license-manager-caches';

type QueryKeys = readonly (readonly unknown[])[];

let channel: BroadcastChannel | null = null;
let listeningClient: QueryClient | null = null;

async function invalidate(queryClient: QueryClient, keys: QueryKeys): Promise<void> {
  await Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey: [...queryKey] })));
}

/** Lets this tab's caches follow the changes the other tabs announce; once per query client. */
export function listenAcrossTabs(queryClient: QueryClient): void {
  if (listeningClient === queryClient || typeof BroadcastChannel === 'undefined') return;
  channel ??= new BroadcastChannel(CHANNEL_NAME);
  channel.onmessage = (event: MessageEvent<{ keys?: unknown[][] }>) => void invalidate(queryClient, event.data?.keys ?? []);
  listeningClient = queryClient;
}

/** After a change: drops the caches under `keys` in this tab and in every other tab of the app. */
export function clearAcrossTabs(queryClient: QueryClient, keys: QueryKeys): Promise<void> {
  listenAcrossTabs(queryClient);
  channel?.postMessage({ keys });
  return invalidate(queryClient, keys);
}
