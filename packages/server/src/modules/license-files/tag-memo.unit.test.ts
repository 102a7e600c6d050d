import { describe, expect, it } from 'vitest';
import { licenseForFile } from './license-for-file.fixture.ts';
import { TagMemo, type PayloadInputs } from './tag-memo.ts';

const ISSUED = Date.parse('2026-03-10T12:00:00.000Z');
const EXPIRES = ISSUED + 30 * 86_400_000;
const features = ['edit', 'export'];
/** One license with the catalogue cache's product and policy objects. */
const LICENSE = licenseForFile();
/** The same license read again from the database: new objects of the same values, the cache's product and policy. */
const readAgain = () => ({ ...LICENSE, owner: { ...LICENSE.owner } });

function inputs(change: (base: PayloadInputs) => PayloadInputs = (base) => base, base = LICENSE): PayloadInputs {
  return change({ license: base, features, serverCustomerId: 'C-1', kid: 'k1', machineId: 'M' });
}

describe('TagMemo', () => {
  it('knows a tag it was given with the same inputs (read anew: another object of the same values), and its expiry', () => {
    const memo = new TagMemo();
    memo.remember('hash', ISSUED, EXPIRES, inputs());
    expect(memo.expiryIfKnown('hash', ISSUED, inputs(undefined, readAgain()))).toBe(EXPIRES);
    memo.remember('forever', ISSUED, null, inputs());
    expect(memo.expiryIfKnown('forever', ISSUED, inputs())).toBeNull();
  });

  it('knows a tag after the catalogue cache reloaded its product, policy and features as new objects of the same values', () => {
    const memo = new TagMemo();
    memo.remember('hash', ISSUED, EXPIRES, inputs());
    const reloaded = { ...readAgain(), product: { ...LICENSE.product }, policy: { ...LICENSE.policy } };
    expect(memo.expiryIfKnown('hash', ISSUED, inputs((i) => ({ ...i, features: [...features] }), reloaded))).toBe(EXPIRES);
  });

  it('knows nothing of another tag, another issue time or another license', () => {
    const memo = new TagMemo();
    memo.remember('hash', ISSUED, EXPIRES, inputs());
    expect(memo.expiryIfKnown('other', ISSUED, inputs())).toBeUndefined();
    expect(memo.expiryIfKnown('hash', ISSUED + 1, inputs())).toBeUndefined();
    expect(memo.expiryIfKnown('hash', ISSUED, inputs(undefined, { ...LICENSE, id: 2 }))).toBeUndefined();
  });

  it('misses as soon as anything the payload is built from differs', () => {
    const base = LICENSE;
    const changes: [string, PayloadInputs][] = [
      ['machine', inputs((i) => ({ ...i, machineId: 'N' }))],
      ['signing key', inputs((i) => ({ ...i, kid: 'k2' }))],
      ['server customer id', inputs((i) => ({ ...i, serverCustomerId: null }))],
      ['a feature', inputs((i) => ({ ...i, features: ['edit', 'print'] }))],
      ['one feature more', inputs((i) => ({ ...i, features: [...features, 'print'] }))],
      ['product id', inputs(undefined, { ...base, productId: 2, product: { ...base.product, id: 2 } })],
      ['product name', inputs(undefined, { ...base, product: { ...base.product, name: 'Studio Pro' } })],
      ['product version', inputs(undefined, { ...base, product: { ...base.product, version: '2' } })],
      ['policy type', inputs(undefined, { ...base, policy: { ...base.policy, type: 'PERPETUAL' } })],
      ['policy max valid days', inputs(undefined, { ...base, policy: { ...base.policy, licenseMaxValidDays: 31 } })],
      ['policy refetch interval', inputs(undefined, { ...base, policy: { ...base.policy, refetchIntervalSeconds: 60 } })],
      ['policy refetch before expiry', inputs(undefined, { ...base, policy: { ...base.policy, refetchBeforeExpirySeconds: 60 } })],
      ['kind', inputs(undefined, { ...base, kind: 'TEMPORARY' })],
      ['valid until', inputs(undefined, { ...base, validUntil: '2026-12-31' })],
      ['permanent', inputs(undefined, { ...base, permanent: false })],
      ['TAN valid until (a subscription renewed or lapsed)', inputs(undefined, { ...base, tanValidUntil: '2026-04-30' })],
      ['free updates until', inputs(undefined, { ...base, freeUpdatesUntil: '2027-01-01' })],
      ['owner first name', inputs(undefined, { ...base, owner: { ...base.owner, firstName: 'Augusta' } })],
      ['owner last name', inputs(undefined, { ...base, owner: { ...base.owner, lastName: 'King' } })],
      ['owner company', inputs(undefined, { ...base, owner: { ...base.owner, company: 'Analytical Engines' } })],
    ];
    for (const [what, changed] of changes) {
      const memo = new TagMemo();
      memo.remember('hash', ISSUED, EXPIRES, inputs(undefined, base));
      expect(memo.expiryIfKnown('hash', ISSUED, inputs(undefined, base)), what).toBe(EXPIRES);
      expect(memo.expiryIfKnown('hash', ISSUED, changed), what).toBeUndefined();
    }
  });

  it('keeps only the last tag of a license', () => {
    const memo = new TagMemo();
    memo.remember('first', ISSUED, EXPIRES, inputs());
    memo.remember('second', ISSUED + 1000, EXPIRES + 1000, inputs());
    expect(memo.expiryIfKnown('first', ISSUED, inputs())).toBeUndefined();
    expect(memo.expiryIfKnown('second', ISSUED + 1000, inputs())).toBe(EXPIRES + 1000);
  });
});
