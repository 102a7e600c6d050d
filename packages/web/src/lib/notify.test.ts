import { describe, expect, it, vi } from 'vitest';
import type { ErrorCode } from '@lm/contract';
import { ApiError } from './api.ts';
import { formatDate } from './format.ts';
import { errorText } from './notify.ts';

// Every key "exists" (but `validation.notInVocabulary`) and translates to itself: the test is about
// which key errorText picks. A variant (i18next's context) shows as `key_context: values`.
vi.mock('./i18n.ts', () => ({
  default: {
    exists: (key: string) => !key.startsWith('validation.notInVocabulary'),
    t: (key: string, options?: { context?: string; nextTrialFrom?: string; latest?: string }) => (options?.context ? `${key}_${options.context}: ${options.nextTrialFrom ?? options.latest}` : key),
  },
}));

const failure = (status: number, error: ErrorCode) => new ApiError(status, { error, message: 'server text' }, 'server text');

describe('errorText', () => {
  it("says the action failed (spec section 8) when the code gives no reason", () => {
    expect(errorText(failure(400, 'ERR_VALIDATION'), 'catalogue.createFailed')).toBe('catalogue.createFailed');
    expect(errorText(failure(500, 'ERR_INTERNAL'), 'catalogue.updateFailed')).toBe('catalogue.updateFailed');
  });

  it('names the reason when the code has one', () => {
    expect(errorText(failure(409, 'ERR_IN_USE'), 'catalogue.deleteFailed')).toBe('errors.ERR_IN_USE');
    expect(errorText(failure(422, 'ERR_TOO_MANY_MACHINES'), 'licenses.activateFailed')).toBe('errors.ERR_TOO_MANY_MACHINES');
  });

  it('says from when a computer may try again, as the language writes dates, where the server knows it', () => {
    const later = new ApiError(422, { error: 'ERR_TRIAL_USED', message: 'server text', params: { nextTrialFrom: '2026-07-01' } }, 'server text');
    expect(errorText(later, 'licenses.addFailed')).toBe(`errors.ERR_TRIAL_USED_later: ${formatDate('2026-07-01')}`);
    expect(errorText(failure(422, 'ERR_TRIAL_USED'), 'licenses.addFailed')).toBe('errors.ERR_TRIAL_USED');
  });

  it('says what keeps a record from being deleted, and so what to do, where the server names it', () => {
    const usedBy = new ApiError(409, { error: 'ERR_IN_USE', message: 'server text', params: { name: 'export:pdf', users: 'Acme CAD 5, suite' } }, 'server text');
    expect(errorText(usedBy, 'catalogue.deleteFailed')).toMatch(/^errors\.ERR_IN_USE_users: /);
    const hasLicenses = new ApiError(409, { error: 'ERR_IN_USE', message: 'server text', params: { name: 'Acme CAD 5', tans: 0, licenses: 3 } }, 'server text');
    expect(errorText(hasLicenses, 'catalogue.deleteFailed')).toMatch(/^errors\.ERR_IN_USE_records: /);
    const automated = new ApiError(409, { error: 'ERR_IN_USE', message: 'server text', params: { name: 'Acme CAD 5', tans: 0, licenses: 0 } }, 'server text');
    expect(errorText(automated, 'catalogue.deleteFailed')).toBe('errors.ERR_IN_USE');
  });

  it('says how far a trial can be extended', () => {
    const tooFar = new ApiError(422, { error: 'ERR_EXTEND_TOO_FAR', message: 'server text', params: { latest: '2026-12-08', max: 14 } }, 'server text');
    expect(errorText(tooFar, 'licenses.updateFailed')).toBe(`errors.ERR_EXTEND_TOO_FAR_latest: ${formatDate('2026-12-08')}`);
  });

  it('falls back to the translated code when the caller names no action', () => {
    expect(errorText(failure(400, 'ERR_VALIDATION'))).toBe('errors.ERR_VALIDATION');
  });

  it('says what was refused when the caller names no action and the server gave details', () => {
    const details = [{ path: 'after', code: 'pageCursor', message: 'This link to a page no longer fits the list' }];
    const refused = new ApiError(400, { error: 'ERR_VALIDATION', message: 'server text', details }, 'server text');
    expect(errorText(refused)).toBe('errors.ERR_VALIDATION This link to a page no longer fits the list');
    expect(errorText(refused, 'catalogue.createFailed')).toBe('catalogue.createFailed');
  });

  it("never shows the server's or the browser's English: a proxy's answer without our body gets a generic text", () => {
    const proxy = new ApiError(503, undefined, 'Service Unavailable');
    expect(errorText(proxy)).toBe('common.unexpectedError');
    expect(errorText(proxy, undefined, 'common.loadFailed')).toBe('common.loadFailed');
    expect(errorText(proxy, 'catalogue.createFailed')).toBe('catalogue.createFailed');
    expect(errorText(new ApiError(undefined, undefined, 'Failed to fetch'))).toBe('errors.network');
    expect(errorText(new TypeError('x is undefined'))).toBe('common.unexpectedError');
  });

  it('leaves out refused fields the server could not word in the language', () => {
    const details = [
      { path: 'a', code: 'pageCursor', message: 'in the language' },
      { path: 'b', message: 'English only' },
      { path: 'c', code: 'notInVocabulary', message: 'English too' },
    ];
    expect(errorText(new ApiError(400, { error: 'ERR_VALIDATION', message: 'server text', details }, 'server text'))).toBe('errors.ERR_VALIDATION in the language');
    expect(errorText(new ApiError(400, { error: 'ERR_VALIDATION', message: 'server text', details: details.slice(1) }, 'server text'))).toBe('errors.ERR_VALIDATION');
  });
});
