import { Alert, Button, Group, Paper, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconInfoCircle } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { userFields } from '@lm/contract/user';
import { useFieldAccess } from '../../components/FieldAccess.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { USER_FORM_FIELDS, UserFormFields, userFormValues, userPayload, type UserFormValues } from '../../components/UserFormFields.tsx';
import { ApiError } from '../../lib/api.ts';
import { formValidator } from '../../lib/forms.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { markTakenEmail } from '../../lib/server-errors.ts';
import { USERS_KEY, usersApi } from './api.ts';

/** `/users/create`: the account is confirmed at once, gets a random password and no mail (spec section 4). */
export default function UserCreatePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const access = useFieldAccess('create', 'User');
  const form = useForm<UserFormValues>({ mode: 'uncontrolled', initialValues: userFormValues(), validate: formValidator(userFields) });

  const submit = form.onSubmit(async (values) => {
    try {
      const created = await usersApi.create(userPayload(values, USER_FORM_FIELDS.filter((field) => access(field).allowed)));
      await queryClient.invalidateQueries({ queryKey: USERS_KEY });
      showSuccess(t('users.created', { email: created.email }));
      navigate('/users');
    } catch (error) {
      // Spec section 8: 'Create failed'; a taken address says so.
      showError(error instanceof ApiError && error.code === 'ERR_DUPLICATE_EMAIL' ? error : null, 'users.createFailed');
      markTakenEmail(form, error);
    }
  });

  return (
    <Stack maw={720}>
      <PageTitle title={t('pages.userCreate')} />
      <Alert color="blue" icon={<IconInfoCircle />}>
        {t('users.createHint')}
      </Alert>
      <Paper withBorder p="lg" radius="md">
        <form onSubmit={submit} noValidate data-testid="user-create-form">
          <Stack>
            <UserFormFields form={form} access={access} />
            <Group justify="flex-end">
              <Button variant="default" component={Link} to="/users">
                {t('common.cancel')}
              </Button>
              <Button type="submit" loading={form.submitting}>
                {t('common.create')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
    </Stack>
  );
}
