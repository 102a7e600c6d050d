import { Button, Group, PasswordInput, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { passwordChange } from '@lm/contract/two-factor';
import { formValidator } from '../../lib/forms.ts';
import { errorText, showSuccess } from '../../lib/notify.ts';
import { useChangePassword } from './api.ts';

const passwordForm = passwordChange
  .extend({ confirmation: z.string() })
  .refine((values) => values.newPassword === values.confirmation, { path: ['confirmation'], message: 'validation.passwordMismatch' });

/** A new password, with the current one as proof; the account's other sessions end. */
export function PasswordSection() {
  const { t } = useTranslation();
  const change = useChangePassword();
  const form = useForm({ mode: 'uncontrolled', initialValues: { currentPassword: '', newPassword: '', confirmation: '' }, validate: formValidator(passwordForm) });
  const submit = form.onSubmit(async ({ currentPassword, newPassword }) => {
    try {
      await change.mutateAsync({ currentPassword, newPassword });
      form.reset();
      showSuccess(t('security.password.changed'));
    } catch (error) {
      form.setFieldError('currentPassword', errorText(error, 'security.password.failed'));
    }
  });
  return (
    <form onSubmit={submit} noValidate data-testid="password-change">
      <Stack>
        <Text size="sm">{t('security.password.explain')}</Text>
        <PasswordInput label={t('security.password.current')} autoComplete="current-password" required key={form.key('currentPassword')} {...form.getInputProps('currentPassword')} />
        <PasswordInput label={t('security.password.new')} autoComplete="new-password" required key={form.key('newPassword')} {...form.getInputProps('newPassword')} />
        <PasswordInput label={t('accounts.passwordConfirm')} autoComplete="new-password" required key={form.key('confirmation')} {...form.getInputProps('confirmation')} />
        <Group justify="flex-end">
          <Button type="submit" loading={change.isPending}>
            {t('security.password.change')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
