import { describe, expect, it } from 'vitest';
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from './constants.ts';
import { idParam, listQuery, listResponse, MAX_RECORD_ID, recordId } from './list.ts';
import { z } from 'zod';

const query = listQuery(['id', 'name', 'createdAt']);

describe('listQuery', () => {
  it('defaults to offset 0, limit 50, no filter, no sort', () => {
    expect(query.parse({})).toEqual({ offset: 0, limit: LIST_DEFAULT_LIMIT, sort: [] });
    expect(LIST_DEFAULT_LIMIT).toBe(50);
  });

  it('coerces query-string numbers', () => {
    expect(query.parse({ offset: '20', limit: '10' })).toMatchObject({ offset: 20, limit: 10 });
  });

  it('parses sort: field ascending, -field descending, comma separated, in order', () => {
    expect(query.parse({ sort: 'name' }).sort).toEqual([{ field: 'name', descending: false }]);
    expect(query.parse({ sort: '-createdAt' }).sort).toEqual([{ field: 'createdAt', descending: true }]);
    expect(query.parse({ sort: 'name,-id' }).sort).toEqual([
      { field: 'name', descending: false },
      { field: 'id', descending: true },
    ]);
    expect(query.parse({ sort: '' }).sort).toEqual([]);
  });

  it('refuses sort fields the entity does not allow', () => {
    const result = query.safeParse({ sort: 'name,password' });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]).toMatchObject({ message: 'validation.sortField', params: { field: 'password' } });
    expect(result.error!.issues[0].path).toEqual(['sort']);
    for (const sort of ['-', 'name,', ',name', '--name', 'Name', 'name desc']) expect(query.safeParse({ sort }).success, sort).toBe(false);
  });

  it('limits limit to 1 … 1000 by default', () => {
    expect(LIST_MAX_LIMIT).toBe(1000);
    expect(query.parse({ limit: '1' }).limit).toBe(1);
    expect(query.parse({ limit: '1000' }).limit).toBe(1000);
    for (const limit of ['0', '-5', '1001', '10000', '2.5', 'abc']) expect(query.safeParse({ limit }).success, limit).toBe(false);
  });

  it('takes a higher maximum where an entity allows it (the feature cache asks for 10000)', () => {
    const features = listQuery(['name'], 10000);
    expect(features.parse({ limit: '10000' }).limit).toBe(10000);
    expect(features.safeParse({ limit: '10001' }).success).toBe(false);
  });

  it('refuses a negative or fractional offset', () => {
    for (const offset of ['-1', '1.5', 'x']) expect(query.safeParse({ offset }).success, offset).toBe(false);
  });

  it('trims the filter and caps its length at 200', () => {
    expect(query.parse({ filter: '  acme  ' }).filter).toBe('acme');
    expect(query.parse({ filter: 'x'.repeat(200) }).filter).toHaveLength(200);
    expect(query.safeParse({ filter: 'x'.repeat(201) }).success).toBe(false);
  });
});

describe('listResponse and idParam', () => {
  it('shapes a list as items and totalCount', () => {
    const list = listResponse(z.object({ id: z.number() }));
    expect(list.parse({ items: [{ id: 1 }], totalCount: 7 })).toEqual({ items: [{ id: 1 }], totalCount: 7 });
    expect(list.safeParse({ items: [] }).success).toBe(false);
  });

  it('coerces a positive integer id', () => {
    expect(idParam.parse({ id: '42' })).toEqual({ id: 42 });
    for (const id of ['0', '-1', '1.5', 'abc']) expect(idParam.safeParse({ id }).success, id).toBe(false);
  });

  it('refuses ids beyond a 32-bit integer column, which PostgreSQL would answer with an error', () => {
    expect(idParam.parse({ id: String(MAX_RECORD_ID) })).toEqual({ id: MAX_RECORD_ID });
    expect(idParam.safeParse({ id: String(MAX_RECORD_ID + 1) }).success).toBe(false);
    expect(recordId.safeParse(3_000_000_000).success).toBe(false);
  });
});
