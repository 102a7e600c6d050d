import { useState } from 'react';
import { Alert, Anchor, Button, Center, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconMailForward } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { emailRequest, type EmailRequest } from '@lm/contract/user';
import { PageTitle } from '../../components/PageTitle.tsx';
import { ApiError } from '../../lib/api.ts';
import { formValidator } from '../../lib/forms.ts';
import { errorText } from '../../lib/notify.ts';
import { accountsApi } from './api.ts';

/** `/forgot-password`: asks for the address; the answer is the same whether an account has it or not. */
export default function ForgotPasswordPage() {
  const { t } = useTranslation();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const form = useForm<EmailRequest>({ mode: 'uncontrolled', initialValues: { email: '' }, validate: formValidator(emailRequest) });

  const submit = form.onSubmit(async ({ email }) => {
    setFailure(null);
    try {
      await accountsApi.forgotPassword(email.trim());
      setSentTo(email.trim());
    } catch (error) {
      setFailure(error instanceof ApiError && error.code === 'ERR_RATE_LIMITED' ? errorText(error) : t('accounts.forgot.failed'));
    }
  });

  return (
    <Center>
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={440}>
        <PageTitle title={t('pages.forgotPassword')} />
        {sentTo ? (
          <Alert color="blue" icon={<IconMailForward />} title={t('accounts.forgot.sentTitle')} data-testid="forgot-sent">
            {t('accounts.forgot.sentText', { email: sentTo })}
          </Alert>
        ) : (
          <form onSubmit={submit} noValidate>
            <Stack>
              <Text size="sm">{t('accounts.forgot.intro')}</Text>
              {failure && (
                <Alert color="red" role="alert">
                  {failure}
                </Alert>
              )}
              <TextInput label={t('accounts.email')} type="email" autoComplete="email" required key={form.key('email')} {...form.getInputProps('email')} />
              <Button type="submit" loading={form.submitting}>
                {t('accounts.forgot.submit')}
              </Button>
            </Stack>
          </form>
        )}
        <Text size="sm" mt="lg" ta="center">
          <Anchor component={Link} to="/login">
            {t('accounts.backToLogin')}
          </Anchor>
        </Text>
      </Paper>
    </Center>
  );
}
