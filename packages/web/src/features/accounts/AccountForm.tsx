import { Button, Group, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconMailCog } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { userFields, type User } from '@lm/contract/user';
import { useFieldAccess } from '../../components/FieldAccess.tsx';
import { USER_FORM_FIELDS, UserFormFields, userFormValues, userPayload, type UserFormValues } from '../../components/UserFormFields.tsx';
import { ApiError } from '../../lib/api.ts';
import { auth } from '../../lib/auth.ts';
import { formValidator } from '../../lib/forms.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { markTakenEmail } from '../../lib/server-errors.ts';
import { accountsApi, myAccountKey } from './api.ts';

/** My account's fields; those the rules deny are disabled and hatched, e-mail has its own page. */
export function AccountForm({ user }: { user: User }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const access = useFieldAccess('update', 'User', { id: user.id });
  const viewable = useFieldAccess('view', 'User', { id: user.id });
  const hidden = USER_FORM_FIELDS.filter((field) => field === 'optInEmail' || !viewable(field).allowed);
  const form = useForm<UserFormValues>({ mode: 'uncontrolled', initialValues: userFormValues(user), validate: formValidator(userFields) });
  const editable = USER_FORM_FIELDS.filter((field) => field !== 'optInEmail' && access(field).allowed);

  const submit = form.onSubmit(async (values) => {
    try {
      const saved = await accountsApi.update(user.id, userPayload(values, editable));
      queryClient.setQueryData(myAccountKey(user.id), saved);
      form.resetDirty(userFormValues(saved));
      showSuccess(t('accounts.settings.saved'));
      await auth.validate();
    } catch (error) {
      // Spec section 8: 'Saving account settings failed'; a taken address says so.
      showError(error instanceof ApiError && error.code === 'ERR_DUPLICATE_EMAIL' ? error : null, 'accounts.settings.saveFailed');
      markTakenEmail(form, error);
    }
  });

  const changeEmailButton = !access('email').allowed && (
    <Button component={Link} to="/account/change-email" variant="light" size="xs" mt={6} leftSection={<IconMailCog size={16} />} data-testid="change-email-button">
      {t('accounts.settings.changeEmail')}
    </Button>
  );

  return (
    <form onSubmit={submit} noValidate data-testid="account-form">
      <Stack>
        <UserFormFields form={form} access={access} omit={hidden} emailAction={changeEmailButton} />
        <Group justify="flex-end">
          <Button type="submit" loading={form.submitting}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
