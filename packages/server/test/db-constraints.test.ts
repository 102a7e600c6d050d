import { expect, it } from 'vitest';
import { isForeignKeyViolation, isUniqueViolation } from '../src/platform/db/search.ts';
import { describeBothDatabases } from './harness.ts';

/** The services map lost races to ordinary answers by recognising these errors on both databases. */
describeBothDatabases('constraint errors', (t) => {
  const now = new Date().toISOString();
  const caught = async (work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (error) {
      return error;
    }
    throw new Error('expected the database to refuse');
  };

  it('recognises a unique violation', async () => {
    const insert = () => t.app.ctx.db.insertInto('features').values({ name: 'twice', localized_description: '{}', hidden: false, notes: null, created_at: now, updated_at: now }).execute();
    await insert();
    const error = await caught(insert);
    expect(isUniqueViolation(error)).toBe(true);
    expect(isForeignKeyViolation(error)).toBe(false);
  });

  it('recognises a foreign-key violation', async () => {
    const error = await caught(() => t.app.ctx.db.insertInto('product_features').values({ product_id: 999999, feature_id: 999999 }).execute());
    expect(isForeignKeyViolation(error)).toBe(true);
    expect(isUniqueViolation(error)).toBe(false);
    expect(isUniqueViolation(new Error('something else'))).toBe(false);
    expect(isForeignKeyViolation(null)).toBe(false);
  });
});
