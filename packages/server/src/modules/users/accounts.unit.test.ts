import { describe, expect, it } from 'vitest';
import { formatUserName, LOCALES } from '@lm/contract';
import { registration, userFields } from '@lm/contract/user';
import { redactPersonalFields } from './close.ts';
import { ACCOUNT_MAIL_TEXTS } from './mail-texts.ts';
import { TOKEN_LIFETIME_HOURS } from './tokens.ts';

describe('redactPersonalFields', () => {
  it('keeps what happened and drops who it was', () => {
    const redacted = redactPersonalFields(JSON.stringify({ email: 'a@b.cd', firstName: 'A', notes: 'n', accessRole: 'USER', confirmed: true }));
    expect(JSON.parse(redacted!)).toEqual({ accessRole: 'USER', confirmed: true });
    expect(redactPersonalFields(null)).toBeNull();
    expect(redactPersonalFields('not json')).toBeNull();
    expect(redactPersonalFields('[1]')).toBeNull();
  });
});

describe('account mail texts', () => {
  it('exist in every language, non-empty, with the placeholders each needs', () => {
    for (const locale of LOCALES) {
      const texts = ACCOUNT_MAIL_TEXTS[locale];
      expect(texts.greeting.length).toBeGreaterThan(2);
      for (const [kind, mail] of Object.entries(texts.mails)) {
        expect(mail.subject).toContain('{product}');
        expect(mail.intro).toContain('{email}');
        // A mail whose link expires says when; the notices link to the login page.
        if (kind !== 'twoFactorReset' && kind !== 'emailChanged') expect(mail.outro).toContain('{hours}');
        if (kind === 'emailChanged') expect(mail.intro).toContain('{newEmail}');
        expect(mail.action.length).toBeGreaterThan(3);
      }
    }
  });

  it('match the token lifetimes of the issue: 48 h, 48 h, 2 h', () => {
    expect(TOKEN_LIFETIME_HOURS).toEqual({ 'confirm-registration': 48, 'change-email': 48, 'reset-password': 2 });
  });
});

describe('user schemas', () => {
  it('formats a name, falling back to company, then address', () => {
    expect(formatUserName({ firstName: 'Ada', lastName: 'Lovelace', company: 'Engines' })).toBe('Ada Lovelace (Engines)');
    expect(formatUserName({ firstName: '', lastName: '', company: 'Engines', email: 'a@b.cd' })).toBe('Engines');
    expect(formatUserName({ firstName: '', lastName: '', company: null, email: 'a@b.cd' })).toBe('a@b.cd');
  });

  it('checks registration: password of at least 5 characters, equal confirmation', () => {
    expect(registration.safeParse({ email: 'a@b.cd', password: '12345', password_confirm: '12345' }).success).toBe(true);
    expect(registration.safeParse({ email: 'a@b.cd', password: '1234', password_confirm: '1234' }).success).toBe(false);
    expect(registration.safeParse({ email: 'a@b.cd', password: '12345', password_confirm: '12346' }).success).toBe(false);
  });

  it('checks user fields: e-mail 4 to 255 characters, names 1 to 255, no control characters', () => {
    const valid = { email: 'Ab@Cd.EF', firstName: ' Ada ', lastName: 'L', accessRole: 'USER', optInEmail: false };
    expect(userFields.parse(valid)).toMatchObject({ email: 'ab@cd.ef', firstName: 'Ada', company: null });
    expect(userFields.safeParse({ ...valid, email: `${'a'.repeat(251)}@b.cd` }).success).toBe(false);
    expect(userFields.safeParse({ ...valid, email: `${'a'.repeat(250)}@b.cd` }).success).toBe(true);
    expect(userFields.safeParse({ ...valid, firstName: '' }).success).toBe(false);
    expect(userFields.safeParse({ ...valid, lastName: 'x'.repeat(256) }).success).toBe(false);
    expect(userFields.safeParse({ ...valid, city: 'a\u0000b' }).success).toBe(false);
    expect(userFields.safeParse({ ...valid, notes: 'line one\nline two\ttab' }).success).toBe(true);
    expect(userFields.safeParse({ ...valid, notes: 'bell\u0007' }).success).toBe(false);
  });
});
