import { inReadScope } from '../../platform/db/replica-driver.ts';
import { catalogueGeneration } from '../../platform/catalogue-generation.ts';
import type { AppContext } from '../../platform/context.ts';
import { settingValue } from '../settings/service.ts';
import { resolveEntitlements, type EntitlementGrant, type Entitlements, type FeatureValue } from '@lm/contract/entitlement';
import { featureExpansionGraph } from '../features/service.ts';
import { listPolicies, listProducts, resolvedFeatureNames, type PolicyRow, type ProductRow } from './repo.ts';

/**
 * What every license file repeats and seldom changes: products, policies, a product's resolved
 * features and the server customer id. Cached for a few seconds so that the desktop protocol needs
 * one query per call. A catalogue change made through this app instance reloads it at once (the
 * catalogue generation); one made through another instance reaches the files within CACHE_SECONDS.
 * A license naming a product or policy not in the cache (just created) reloads it.
 */
const CACHE_SECONDS = 10;

interface Entry<T> {
  value: Promise<T>;
  loadedAt: number;
  generation: number;
  failed?: boolean;
}

export class Catalogue {
  private readonly byName = new Map<string, ProductRow[]>();
  private readonly productsById = new Map<number, ProductRow>();
  private readonly policiesById = new Map<number, PolicyRow>();

  constructor(products: ProductRow[], policies: PolicyRow[]) {
    for (const product of products) {
      this.productsById.set(product.id, product);
      this.byName.set(product.name, [...(this.byName.get(product.name) ?? []), product]);
    }
    for (const policy of policies) this.policiesById.set(policy.id, policy);
  }

  productsNamed(name: string, version?: string): ProductRow[] {
    const products = this.byName.get(name) ?? [];
    return version === undefined ? products : products.filter((product) => product.version === version);
  }

  product(id: number): ProductRow | undefined {
    return this.productsById.get(id);
  }

  policy(id: number): PolicyRow | undefined {
    return this.policiesById.get(id);
  }
}

export class CatalogueCache {
  private readonly ctx: AppContext;
  private catalogue: Entry<Catalogue> | undefined;
  private readonly features = new Map<number, Entry<string[]>>();
  private customerId: Entry<string | null> | undefined;
  private expansions: Entry<Map<string, string[]>> | undefined;
  private readonly ownEntitlements = new WeakMap<string[], { values: object; entitlements: Entitlements }>();

  constructor(ctx: AppContext) {
    this.ctx = ctx;
  }

  /** The catalogue, reloaded when stale; `reload` forces it (a license names a product or policy not in it yet). */
  current(options: { reload?: boolean } = {}, now = Date.now()): Promise<Catalogue> {
    if (options.reload) this.catalogue = undefined;
    this.catalogue = this.fresh(this.catalogue, CACHE_SECONDS * 1000, now, async () => {
      const [products, policies] = await Promise.all([listProducts(this.ctx.db), listPolicies(this.ctx.db)]);
      return new Catalogue(products, policies);
    });
    return this.catalogue.value;
  }

  featureNames(productId: number, now = Date.now()): Promise<string[]> {
    if (this.features.size > 10_000) this.features.clear();
    const entry = this.fresh(this.features.get(productId), CACHE_SECONDS * 1000, now, () => resolvedFeatureNames(this.ctx.db, productId));
    this.features.set(productId, entry);
    return entry.value;
  }

  /**
   * A file's entitlements (DESIGN.md section 6g): the product's features with its default values,
   * then the policy's, the TAN's and the license's grants. Without grants (most licenses) no
   * expansion graph is needed.
   */
  async entitlements(productId: number, values: Readonly<Record<string, FeatureValue>>, layers: readonly (readonly EntitlementGrant[])[], now = Date.now()): Promise<Entitlements> {
    const features = await this.featureNames(productId, now);
    if (!layers.some((layer) => layer.length)) return this.productEntitlements(features, values);
    this.expansions = this.fresh(this.expansions, CACHE_SECONDS * 1000, now, () => featureExpansionGraph(this.ctx.db));
    return resolveEntitlements(features, values, layers, await this.expansions.value);
  }

  /**
   * A product's own entitlements (no grants), built once per loaded feature list and product: the
   * same object for every file of the product until either is loaded again. Frozen, as it is shared.
   */
  private productEntitlements(features: string[], values: Readonly<Record<string, FeatureValue>>): Entitlements {
    const cached = this.ownEntitlements.get(features);
    if (cached?.values === values) return cached.entitlements;
    const entitlements = Object.freeze(Object.fromEntries(features.map((name) => [name, values[name] ?? true])));
    this.ownEntitlements.set(features, { values, entitlements });
    return entitlements;
  }

  serverCustomerId(now = Date.now()): Promise<string | null> {
    this.customerId = this.fresh(this.customerId, CACHE_SECONDS * 1000, now, async () => (await settingValue<string | null>(this.ctx.db, 'SERVER_CUSTOMER_ID')) ?? null);
    return this.customerId.value;
  }

  /** Forgets everything (tests that change the catalogue and look at the next file at once). */
  clear(): void {
    this.catalogue = undefined;
    this.features.clear();
    this.customerId = undefined;
    this.expansions = undefined;
  }

  private fresh<T>(entry: Entry<T> | undefined, maxAgeMs: number, now: number, load: () => Promise<T>): Entry<T> {
    const generation = catalogueGeneration(this.ctx);
    if (entry && !entry.failed && entry.generation === generation && now - entry.loadedAt < maxAgeMs) return entry;
    // Always from the primary: a replica's older catalogue would be kept under the new generation.
    const loaded: Entry<T> = { value: inReadScope(false, load), loadedAt: now, generation };
    // A failed load is not kept.
    loaded.value.catch(() => {
      loaded.failed = true;
    });
    return loaded;
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
