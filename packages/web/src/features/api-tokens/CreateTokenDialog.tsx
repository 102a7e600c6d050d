import { useState } from 'react';
import { Modal, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { apiTokenCreate, type ApiTokenCreated } from '@lm/contract/api-token';
import { FormActions } from '../../components/FormActions.tsx';
import { formValidator } from '../../lib/forms.ts';
import { showError } from '../../lib/notify.ts';
import { showFieldErrors } from '../../lib/server-errors.ts';
import { useCreateApiToken } from './api/api-tokens.ts';

const EXPIRY_DAYS = ['7', '30', '90', '365', 'never'] as const;

/** The expiry of a new token: that many days from now, or none. */
export function expiryOf(choice: string, now = new Date()): string | null {
  return choice === 'never' ? null : new Date(now.getTime() + Number(choice) * 86_400_000).toISOString();
}

/** Names a new token and picks its expiry; hands the created token (with its secret) to the page. */
export function CreateTokenDialog({ opened, onClose, onCreated }: { opened: boolean; onClose(): void; onCreated(token: ApiTokenCreated): void }) {
  const { t } = useTranslation();
  const create = useCreateApiToken();
  const [expiry, setExpiry] = useState<string>('90');
  const form = useForm({ initialValues: { name: '' }, validate: formValidator(apiTokenCreate.pick({ name: true })) });

  const submit = form.onSubmit(async (values) => {
    try {
      const created = await create.mutateAsync({ name: values.name, expiresAt: expiryOf(expiry) });
      form.reset();
      onCreated(created);
    } catch (error) {
      if (!showFieldErrors(form, error)) showError(error, 'apiTokens.createFailed');
    }
  });

  return (
    <Modal opened={opened} onClose={onClose} title={t('apiTokens.createTitle')}>
      <form onSubmit={submit} noValidate data-testid="api-token-form">
        <Stack>
          <TextInput label={t('apiTokens.name')} description={t('apiTokens.nameHint')} required data-autofocus {...form.getInputProps('name')} />
          <Select
            label={t('apiTokens.expiry')}
            data={EXPIRY_DAYS.map((value) => ({ value, label: value === 'never' ? t('apiTokens.noExpiry') : t('apiTokens.expiryDays', { count: Number(value) }) }))}
            value={expiry}
            onChange={(value) => setExpiry(value ?? '90')}
            allowDeselect={false}
          />
          <FormActions editing={false} saving={create.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}
