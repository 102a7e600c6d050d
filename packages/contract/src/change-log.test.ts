import { describe, expect, it } from 'vitest';
import { changedFields, isSecretField, withoutSecretFields } from './change-log.ts';

describe('secret fields of the change log', () => {
  it('recognizes password hashes, tokens, secrets and private keys in any spelling', () => {
    for (const name of ['password', 'passwordHash', 'password_hash', 'PASSWORD', 'token', 'tokenHash', 'token_hash', 'resetToken', 'webhookSecret', 'secret', 'privateKey', 'private_key']) {
      expect(isSecretField(name), name).toBe(true);
    }
    for (const name of ['email', 'firstName', 'licenseCount', 'machineId', 'compass', 'notes', 'publicKeyPem']) {
      expect(isSecretField(name), name).toBe(false);
    }
  });

  it('leaves secrets out at any depth and keeps everything else', () => {
    const values = { email: 'a@b.c', passwordHash: 'x', nested: { token: 'y', keep: [{ secret: 'z', ok: 1 }] } };
    expect(withoutSecretFields(values)).toEqual({ email: 'a@b.c', nested: { keep: [{ ok: 1 }] } });
    expect(values.passwordHash).toBe('x');
  });
});

describe('changedFields', () => {
  it('names the fields whose values differ, including added and removed ones', () => {
    const changed = changedFields({ name: 'a', tags: ['x'], same: 1, gone: true }, { name: 'b', tags: ['x', 'y'], same: 1, added: null });
    expect([...changed].sort()).toEqual(['gone', 'name', 'tags']);
  });

  it('treats an insert or a delete as all fields changed', () => {
    expect([...changedFields(null, { a: 1, b: 2 })].sort()).toEqual(['a', 'b']);
    expect([...changedFields({ a: 1 }, null)]).toEqual(['a']);
  });
});
