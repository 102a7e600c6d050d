import { TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The field for an authenticator or recovery code: after a password, and after single sign-on. */
export function SecondFactorCodeInput({ value, missing, testId, onChange }: { value: string; missing: boolean; testId: string; onChange(value: string): void }) {
  const { t } = useTranslation();
  return (
    <TextInput
      label={t('auth.twoFactorCode')}
      autoComplete="one-time-code"
      autoCapitalize="none"
      spellCheck={false}
      required
      data-autofocus
      data-testid={testId}
      value={value}
      error={missing ? t('validation.required') : undefined}
      onChange={(event) => onChange(event.currentTarget.value)}
    />
  );
}
