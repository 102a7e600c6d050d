/** A change's body: field → value, as the API names them. */
export type Body = Record<string, unknown>;

/** Whether two values are the same as JSON (null and undefined alike). */
export const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The fields of `body` whose value differs from `base`: what the person changed, and all an edit sends. */
export function changedFields(body: Body, base: Body): Body {
  return Object.fromEntries(Object.entries(body).filter(([field, value]) => value !== undefined && !same(value, base[field])));
}
