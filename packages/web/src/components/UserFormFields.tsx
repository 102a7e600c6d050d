import type { ReactNode } from 'react';
import { Checkbox, Grid, Select, Textarea, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { ROLES, type Role, type User, type UserFields } from '@lm/contract';
import { countryOptions } from '../lib/countries.ts';
import { currentLocale } from '../lib/i18n.ts';
import type { FieldAccess } from './FieldAccess.tsx';

/** The user form's values: text inputs hold '' where the API holds null. */
export interface UserFormValues {
  email: string;
  firstName: string;
  lastName: string;
  company: string;
  address: string;
  address2: string;
  zip: string;
  city: string;
  country: string | null;
  phone: string;
  fax: string;
  notes: string;
  accessRole: Role;
  optInEmail: boolean;
}

export function userFormValues(user?: User): UserFormValues {
  return {
    email: user?.email ?? '',
    firstName: user?.firstName ?? '',
    lastName: user?.lastName ?? '',
    company: user?.company ?? '',
    address: user?.address ?? '',
    address2: user?.address2 ?? '',
    zip: user?.zip ?? '',
    city: user?.city ?? '',
    country: user?.country ?? null,
    phone: user?.phone ?? '',
    fax: user?.fax ?? '',
    notes: user?.notes ?? '',
    accessRole: user?.accessRole ?? 'USER',
    optInEmail: user?.optInEmail ?? false,
  };
}

type FieldName = keyof UserFormValues;

/** What the API takes: empty texts as null, only the fields given. */
export function userPayload(values: UserFormValues, fields: readonly FieldName[]): Partial<UserFields> {
  const payload: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field];
    payload[field] = typeof value === 'string' && value.trim() === '' && field !== 'email' && field !== 'firstName' && field !== 'lastName' ? null : value;
  }
  return payload as Partial<UserFields>;
}

export const USER_FORM_FIELDS: readonly FieldName[] = [
  'email', 'firstName', 'lastName', 'company', 'address', 'address2', 'zip', 'city', 'country', 'phone', 'fax', 'notes', 'accessRole', 'optInEmail',
];

export function useRoleOptions() {
  const { t } = useTranslation();
  return ROLES.map((role) => ({ value: role, label: t(`users.roles.${role}`) }));
}

/**
 * The fields of a user (spec section 3), each enabled or disabled by the rules (`access`); a form
 * leaves out what it does not show (`omit`). `emailAction` sits beside the e-mail field.
 */
export function UserFormFields({
  form,
  access,
  omit = [],
  emailAction,
}: {
  form: UseFormReturnType<UserFormValues>;
  access: (field: string) => FieldAccess;
  omit?: readonly FieldName[];
  emailAction?: ReactNode;
}) {
  const { t } = useTranslation();
  const roles = useRoleOptions();
  const shown = (field: FieldName) => !omit.includes(field);
  const text = (field: FieldName, span: number, extra: Record<string, unknown> = {}) =>
    shown(field) && (
      <Grid.Col span={{ base: 12, sm: span }}>
        <TextInput label={t(`users.fields.${field}`)} key={form.key(field)} {...form.getInputProps(field)} {...access(field).inputProps} {...extra} />
      </Grid.Col>
    );

  return (
    <Grid>
      {shown('email') && (
        <Grid.Col span={12}>
          <TextInput
            label={t('users.fields.email')}
            type="email"
            autoComplete="email"
            required
            key={form.key('email')}
            {...form.getInputProps('email')}
            {...access('email').inputProps}
            description={emailAction}
            inputWrapperOrder={['label', 'input', 'description', 'error']}
          />
        </Grid.Col>
      )}
      {text('firstName', 6, { required: true, autoComplete: 'given-name' })}
      {text('lastName', 6, { required: true, autoComplete: 'family-name' })}
      {text('company', 12, { autoComplete: 'organization' })}
      {text('address', 12, { autoComplete: 'address-line1' })}
      {text('address2', 12, { autoComplete: 'address-line2' })}
      {text('zip', 4, { autoComplete: 'postal-code' })}
      {text('city', 8, { autoComplete: 'address-level2' })}
      {shown('country') && (
        <Grid.Col span={12}>
          <Select
            label={t('users.fields.country')}
            data={countryOptions(currentLocale())}
            searchable
            clearable
            key={form.key('country')}
            {...form.getInputProps('country')}
            {...access('country').inputProps}
          />
        </Grid.Col>
      )}
      {text('phone', 6, { type: 'tel', autoComplete: 'tel' })}
      {text('fax', 6, { type: 'tel' })}
      {shown('accessRole') && (
        <Grid.Col span={12}>
          <Select
            label={t('users.fields.accessRole')}
            data={roles}
            allowDeselect={false}
            key={form.key('accessRole')}
            {...form.getInputProps('accessRole')}
            {...access('accessRole').inputProps}
          />
        </Grid.Col>
      )}
      {shown('notes') && (
        <Grid.Col span={12}>
          <Textarea label={t('users.fields.notes')} autosize minRows={2} maxRows={8} key={form.key('notes')} {...form.getInputProps('notes')} {...access('notes').inputProps} />
        </Grid.Col>
      )}
      {shown('optInEmail') && (
        <Grid.Col span={12}>
          <Checkbox
            label={t('users.fields.optInEmail')}
            key={form.key('optInEmail')}
            {...form.getInputProps('optInEmail', { type: 'checkbox' })}
            disabled={!access('optInEmail').allowed}
          />
        </Grid.Col>
      )}
    </Grid>
  );
}
