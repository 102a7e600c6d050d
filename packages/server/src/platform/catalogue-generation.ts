/**
 * A number per app that every write to the catalogue (products, features, license policies,
 * settings) raises after it committed, so that caches of it in this process (the license files'
 * catalogue cache) reload at their next use instead of serving the old catalogue until they expire.
 * Other app instances see the change when their caches expire (a few seconds).
 */
const generations = new WeakMap<object, number>();

export function catalogueGeneration(ctx: object): number {
  return generations.get(ctx) ?? 0;
}

/** Call after the transaction that changed the catalogue ended (also when it failed: a reload costs little). */
export function catalogueChanged(ctx: object): void {
  generations.set(ctx, catalogueGeneration(ctx) + 1);
}

/** Runs a catalogue write and announces it afterwards. */
export async function changingCatalogue<T>(ctx: object, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    catalogueChanged(ctx);
  }
}
