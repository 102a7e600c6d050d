import { Button, Group, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { userFields, type User } from '@lm/contract/user';
import { ChangeLogLink } from '../../components/ChangeLogLink.tsx';
import { useFieldAccess } from '../../components/FieldAccess.tsx';
import { USER_FORM_FIELDS, UserFormFields, userFormValues, userPayload, type UserFormValues } from '../../components/UserFormFields.tsx';
import { ApiError } from '../../lib/api.ts';
import { formValidator } from '../../lib/forms.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { markTakenEmail } from '../../lib/server-errors.ts';
import { USERS_KEY, usersApi } from './api.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { useVersionedEdit } from '../../lib/use-versioned-edit.tsx';
import { confirmDanger } from '../../components/confirm-danger.tsx';

const userBodyOf = (user: User) => userPayload(userFormValues(user), USER_FORM_FIELDS);
const USER_CONFLICT_LABELS = Object.fromEntries(USER_FORM_FIELDS.map((field) => [field, `users.fields.${field}`]));

/**
 * Edits one account; notes and role (and every other field) only as far as the field rules allow.
 * Only the fields the person changed are sent, with the version the dialog shows (If-Match): a
 * consent withdrawn meanwhile is shown in a conflict dialog, never switched on again.
 */
export function UserEditModal({ user, onClose }: { user: User; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const access = useFieldAccess('update', 'User', { id: user.id });
  const mayResetTwoFactor = access('twoFactor').allowed;
  // Offered only where there is a second factor to reset (and so a reset mail to send).
  const twoFactor = useQuery({
    queryKey: [...USERS_KEY, user.id, 'two-factor'],
    queryFn: ({ signal }) => usersApi.twoFactorStatus(user.id, signal),
    enabled: mayResetTwoFactor,
  });
  const form = useForm<UserFormValues>({ mode: 'uncontrolled', initialValues: userFormValues(user), validate: formValidator(userFields) });
  const edit = useVersionedEdit<User>({
    path: `/users/${user.id}`,
    initial: user,
    bodyOf: userBodyOf,
    labels: USER_CONFLICT_LABELS,
    onReload: (current) => {
      form.setValues(userFormValues(current));
      form.resetDirty(userFormValues(current));
    },
    onSaved: async () => {
      await queryClient.invalidateQueries({ queryKey: USERS_KEY });
      showSuccess(t('users.saved'));
      onClose();
    },
  });

  const submit = form.onSubmit(async (values) => {
    try {
      await edit.save(userPayload(values, USER_FORM_FIELDS.filter((field) => access(field).allowed)));
    } catch (error) {
      // Spec section 8: 'Update failed'; a taken address or the last administrator say why.
      const explained = error instanceof ApiError && (error.code === 'ERR_DUPLICATE_EMAIL' || error.code === 'ERR_LAST_ADMIN');
      showError(explained ? error : null, 'users.updateFailed');
      markTakenEmail(form, error);
    }
  });

  return (
    <Dialog onClose={onClose} title={t('users.editTitle', { name: user.formattedName })} size="lg">
      <form onSubmit={submit} noValidate data-testid="user-edit-form">
        <Stack>
          <ChangeLogLink model="User" recordId={user.id} />
          <UserFormFields form={form} access={access} />
          <Group justify="space-between">
            {mayResetTwoFactor && twoFactor.data?.enabled ? (
              <Button
                variant="subtle"
                color="red"
                data-testid="reset-two-factor"
                onClick={() =>
                  confirmDanger({
                    title: t('users.resetTwoFactor'),
                    text: t('users.resetTwoFactorText', { name: user.formattedName }),
                    confirmLabel: t('users.resetTwoFactorConfirm'),
                    run: async () => {
                      await usersApi.resetTwoFactor(user.id);
                      await queryClient.invalidateQueries({ queryKey: [...USERS_KEY, user.id, 'two-factor'] });
                    },
                    done: t('users.twoFactorReset'),
                    failedKey: 'users.updateFailed',
                  })
                }
              >
                {t('users.resetTwoFactor')}
              </Button>
            ) : (
              <span />
            )}
            <Group>
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={form.submitting || edit.saving}>
              {t('common.save')}
            </Button>
            </Group>
          </Group>
        </Stack>
      </form>
      {edit.conflictDialog}
    </Dialog>
  );
}
