import { Alert, Button, Divider, Stack } from '@mantine/core';
import { IconBuildingSkyscraper } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useSsoStatus } from '../../lib/sso.ts';

/**
 * The login page's "Sign in with …" (DESIGN.md section 6j): a plain link to the server, which sends
 * the browser to the identity provider; a failed sign-in comes back as `?ssoError=<code>`, shown here
 * in the page's language.
 */
export function SsoSignIn() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const { data } = useSsoStatus();
  const error = params.get('ssoError');
  const errorKey = error && /^ERR_[A-Z_]+$/.test(error) ? `errors.${error}` : null;
  return (
    <Stack gap="sm">
      {errorKey && (
        <Alert color="red" role="alert" data-testid="sso-error">
          {t(errorKey, { defaultValue: t('errors.ERR_SSO_FAILED') })}
        </Alert>
      )}
      {data?.enabled && (
        <>
          <Button component="a" href="/api/sso/login" variant="default" leftSection={<IconBuildingSkyscraper size={18} />} data-testid="sso-login">
            {data.label ? t('sso.signInWith', { name: data.label }) : t('sso.signIn')}
          </Button>
          <Divider label={data.requiredForStaff ? t('sso.orPasswordCustomers') : t('sso.orPassword')} labelPosition="center" />
        </>
      )}
    </Stack>
  );
}
