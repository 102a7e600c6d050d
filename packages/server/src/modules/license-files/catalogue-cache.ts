import type { AppContext } from '../../platform/context.ts';
import { settingValue } from '../settings/service.ts';
import { resolvedFeatureNames } from './repo.ts';

/**
 * What every license file repeats and seldom changes: a product's resolved features and the server
 * customer id. Cached for a few seconds so that the desktop protocol needs one query per call; a
 * catalogue change reaches the files of every app instance within CACHE_SECONDS.
 */
const CACHE_SECONDS = 10;

interface Entry<T> {
  value: Promise<T>;
  expires: number;
}

export class CatalogueCache {
  private readonly ctx: AppContext;
  private readonly features = new Map<number, Entry<string[]>>();
  private customerId: Entry<string | null> | undefined;

  constructor(ctx: AppContext) {
    this.ctx = ctx;
  }

  featureNames(productId: number, now = Date.now()): Promise<string[]> {
    let entry = this.features.get(productId);
    if (!entry || entry.expires <= now) {
      if (this.features.size > 10_000) this.features.clear();
      entry = this.fresh(() => resolvedFeatureNames(this.ctx.db, productId), now);
      this.features.set(productId, entry);
    }
    return entry.value;
  }

  serverCustomerId(now = Date.now()): Promise<string | null> {
    if (!this.customerId || this.customerId.expires <= now) {
      this.customerId = this.fresh(async () => (await settingValue<string | null>(this.ctx.db, 'SERVER_CUSTOMER_ID')) ?? null, now);
    }
    return this.customerId.value;
  }

  /** Forgets everything (tests that change the catalogue and look at the next file at once). */
  clear(): void {
    this.features.clear();
    this.customerId = undefined;
  }

  private fresh<T>(load: () => Promise<T>, now: number): Entry<T> {
    const entry: Entry<T> = { value: load(), expires: now + CACHE_SECONDS * 1000 };
    // A failed load is not cached.
    entry.value.catch(() => {
      entry.expires = 0;
    });
    return entry;
  }
}

const caches = new WeakMap<AppContext, CatalogueCache>();

export function catalogueCache(ctx: AppContext): CatalogueCache {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new CatalogueCache(ctx);
    caches.set(ctx, cache);
  }
  return cache;
}
