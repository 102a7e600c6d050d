import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { renderMessage } from '@lm/contract';
import { MESSAGE_CATALOGS } from '@lm/contract/messages/index';

// i18next as the app runs it, on the shared English texts plus two labels of the page texts.
vi.mock('./i18n.ts', () => {
  const labels: Record<string, string> = { 'tans.policy': 'License policy', 'tans.tags': 'Tags' };
  return {
    default: {
      t: (key: string, params: Record<string, string | number> = {}) =>
        labels[key] ?? renderMessage(MESSAGE_CATALOGS.en, 'en', 'validation', key.replace(/^validation\./, ''), params),
    },
  };
});

const { formValidator } = await import('./forms.ts');

describe('formValidator', () => {
  const schema = z.object({ licensePolicyId: z.string().nullable(), tags: z.array(z.string()).max(1), other: z.string().nullable() });

  it('names the field in the default message, as the spec words it', () => {
    const errors = formValidator(schema, { licensePolicyId: 'tans.policy', tags: 'tans.tags' })({ licensePolicyId: 7, tags: [], other: null });
    expect(errors).toEqual({ licensePolicyId: 'License policy is not an allowed value' });
  });

  it('keeps the specific messages, and the plain default where no label is given', () => {
    const errors = formValidator(schema, { licensePolicyId: 'tans.policy', tags: 'tans.tags' })({ licensePolicyId: null, tags: ['a', 'b'], other: 5 });
    expect(errors).toEqual({ tags: 'At most 1 entry', other: 'This value is not allowed' });
  });
});
