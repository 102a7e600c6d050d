import { describe, expect, it, vi } from 'vitest';
import type { UseFormReturnType } from '@mantine/form';
import type { ErrorDetail } from '@lm/contract';
import { ApiError } from './api.ts';
import { showFieldErrors } from './server-errors.ts';

vi.mock('./i18n.ts', () => ({ default: { exists: () => false, t: (key: string) => key } }));

function fakeForm(values: Record<string, unknown>) {
  const marked: Record<string, string>[] = [];
  const form = { getValues: () => values, setErrors: (errors: Record<string, string>) => marked.push(errors) } as unknown as UseFormReturnType<unknown>;
  return { form, marked };
}

const refused = (details: ErrorDetail[]) => new ApiError(400, { error: 'ERR_VALIDATION', message: 'Please check your input.', details }, 'Please check your input.');

describe('showFieldErrors', () => {
  it("puts the server's words under the field they are about", () => {
    const { form, marked } = fakeForm({ email: 'me@example.com' });
    expect(showFieldErrors(form, refused([{ path: 'email', message: 'The license already belongs to this account', code: 'currentOwner' }]))).toBe(true);
    expect(marked).toEqual([{ email: 'The license already belongs to this account' }]);
  });

  it('leaves a refusal about a field the form does not show to the toast', () => {
    const { form, marked } = fakeForm({ machineId: 'M-1' });
    expect(showFieldErrors(form, refused([{ path: 'productId', message: 'Unknown product' }]))).toBe(false);
    expect(marked).toEqual([]);
  });

  it('marks a list field for an error about one of its entries', () => {
    const { form, marked } = fakeForm({ features: ['a', 'b'] });
    expect(showFieldErrors(form, refused([{ path: 'features.1', message: 'Unknown feature' }]), ['features'])).toBe(true);
    expect(marked).toEqual([{ features: 'Unknown feature' }]);
  });
});
