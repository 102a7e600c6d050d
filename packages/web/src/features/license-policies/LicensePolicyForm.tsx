import { ActionIcon, Button, Checkbox, Fieldset, Group, NumberInput, Select, SimpleGrid, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LOCALES, LOCALE_NAMES } from '@lm/contract';
import {
  LEASE_MODES,
  LEASE_TTL_SECONDS,
  licensePolicyFields,
  MAX_BORROW_DAYS,
  MAX_MACHINES_PER_USER,
  MAX_SEAT_REASSIGN_HOURS,
  publicNameEntries,
  SEAT_MODES,
  SELECTABLE_POLICY_TYPES,
  type LicensePolicy,
  type LeaseMode,
  type LicensePolicyInput,
  type PolicyType,
  type SeatMode,
} from '@lm/contract/license-policy';
import { z } from 'zod';
import { OVERAGE_PERCENTS } from '@lm/contract/entitlement';
import { formValidator } from '../../lib/forms.ts';
import { policyLabel } from '../../lib/license-policies.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { showFieldErrors } from '../../lib/server-errors.ts';
import { useQueryClient } from '@tanstack/react-query';
import { LICENSE_POLICIES_KEY } from '../../lib/license-policies.ts';
import { useVersionedEdit } from '../../lib/use-versioned-edit.tsx';
import { useSaveLicensePolicy } from './api/save-license-policy.ts';
import { freeUpdatesOptions, machinesIntervalOptions, refetchOptions, unitsPerDay, validityDays, VALIDITY_UNITS, type ValidityUnit } from './policy-options.ts';
import i18n from '../../lib/i18n.ts';
import { FormActions } from '../../components/FormActions.tsx';
import classes from './LicensePolicyForm.module.css';

interface PolicyFormValues {
  name: string;
  type: PolicyType | '';
  publicNames: { locale: string; description: string }[];
  validityAmount: number | string;
  validityUnit: ValidityUnit;
  refetchIntervalSeconds: string;
  refetchBeforeExpirySeconds: string;
  maxDifferentMachinesCount: number | string;
  maxDifferentMachinesIntervalHours: string;
  freeUpdatesPeriodDays: string;
  maxBorrowDays: number | string;
  betaUpdates: boolean;
  /** Soft limit in percent (DESIGN.md section 6g), as the select holds it. */
  overagePercent: string;
  leaseMode: LeaseMode;
  leaseTtlSeconds: number | string;
  /** Named users (DESIGN.md section 6f): a TAN's count is people, each on up to machinesPerUser machines. */
  seatMode: SeatMode;
  seatReassignHours: number | string;
  machinesPerUser: number | string;
  notes: string;
}

/** The long lists of intervals show more at once than a select's usual 220 px (the theme's). */
const TALL_LIST = { options: { maxHeight: 320 } };

const DEFAULTS: PolicyFormValues = {
  name: '',
  type: 'PERPETUAL',
  publicNames: [{ locale: 'en', description: '' }],
  validityAmount: 30,
  validityUnit: 'days',
  refetchIntervalSeconds: String(86400),
  refetchBeforeExpirySeconds: String(7 * 86400),
  maxDifferentMachinesCount: 3,
  maxDifferentMachinesIntervalHours: String(720),
  freeUpdatesPeriodDays: '',
  maxBorrowDays: 0,
  betaUpdates: false,
  overagePercent: '0',
  leaseMode: 'MACHINE',
  leaseTtlSeconds: 900,
  seatMode: 'MACHINE',
  seatReassignHours: 0,
  machinesPerUser: 2,
  notes: '',
};

function initialValues(policy: LicensePolicy | null): PolicyFormValues {
  if (!policy) return DEFAULTS;
  return {
    name: policy.name,
    type: policy.type,
    publicNames: Object.entries(policy.publicName).map(([locale, description]) => ({ locale, description: description ?? '' })),
    validityAmount: policy.licenseMaxValidDays,
    validityUnit: 'days',
    refetchIntervalSeconds: String(policy.refetchIntervalSeconds),
    refetchBeforeExpirySeconds: String(policy.refetchBeforeExpirySeconds),
    maxDifferentMachinesCount: policy.maxDifferentMachinesCount,
    maxDifferentMachinesIntervalHours: String(policy.maxDifferentMachinesIntervalHours),
    freeUpdatesPeriodDays: policy.freeUpdatesPeriodDays === null ? '' : String(policy.freeUpdatesPeriodDays),
    maxBorrowDays: policy.maxBorrowDays,
    betaUpdates: policy.betaUpdates,
    overagePercent: String(policy.overagePercent),
    leaseMode: policy.leaseMode,
    leaseTtlSeconds: policy.leaseTtlSeconds ?? 900,
    seatMode: policy.seatMode,
    seatReassignHours: policy.seatReassignHours,
    machinesPerUser: policy.machinesPerUser,
    notes: policy.notes ?? '',
  };
}

const integer = (value: number | string) => (value === '' ? Number.NaN : Math.round(Number(value)));

/**
 * The API body: every number an integer (spec section 7); the validity in whole days, whatever unit
 * it was entered in (a month is 30.5 days).
 */
function toBody(values: PolicyFormValues): LicensePolicyInput {
  const amount = values.validityAmount === '' ? Number.NaN : Number(values.validityAmount);
  return {
    name: values.name,
    type: values.type as PolicyType,
    publicName: values.type === 'INDEFINITE' ? {} : Object.fromEntries(values.publicNames.map((entry) => [entry.locale, entry.description])),
    licenseMaxValidDays: validityDays(amount, values.validityUnit) ?? Number.NaN,
    refetchIntervalSeconds: integer(values.refetchIntervalSeconds),
    refetchBeforeExpirySeconds: integer(values.refetchBeforeExpirySeconds),
    maxDifferentMachinesCount: integer(values.maxDifferentMachinesCount),
    maxDifferentMachinesIntervalHours: integer(values.maxDifferentMachinesIntervalHours),
    freeUpdatesPeriodDays: values.freeUpdatesPeriodDays === '' ? null : integer(values.freeUpdatesPeriodDays),
    // Only floating seats can be borrowed: another type sends 0, whatever was typed before switching.
    maxBorrowDays: values.type === 'FLOATING' ? integer(values.maxBorrowDays) : 0,
    betaUpdates: values.betaUpdates,
    overagePercent: values.type === 'FLOATING' ? integer(values.overagePercent) : 0,
    // Instance leases (DESIGN.md section 6h) are for floating policies only.
    leaseMode: values.type === 'FLOATING' ? values.leaseMode : 'MACHINE',
    leaseTtlSeconds: values.type === 'FLOATING' && values.leaseMode === 'INSTANCE' ? integer(values.leaseTtlSeconds) : null,
    // Floating seats are machines at once; named users are for the other types. Their numbers count only for named users.
    seatMode: values.type === 'FLOATING' ? 'MACHINE' : values.seatMode,
    seatReassignHours: values.type !== 'FLOATING' && values.seatMode === 'USER' ? integer(values.seatReassignHours) : 0,
    machinesPerUser: values.type !== 'FLOATING' && values.seatMode === 'USER' ? integer(values.machinesPerUser) : 2,
    notes: values.notes,
  };
}

const validateEntries = formValidator(z.object({ publicNames: publicNameEntries }));
const validateBody = formValidator(licensePolicyFields);
const FIELD_OF_BODY: Record<string, string> = { licenseMaxValidDays: 'validityAmount', publicName: 'publicNames' };

function validate(values: PolicyFormValues): Record<string, string> {
  const bodyErrors = Object.entries(validateBody(toBody(values)))
    // Public-name entries are checked one by one below, with their positions.
    .filter(([path]) => !path.startsWith('publicName.'))
    .map(([path, message]) => [FIELD_OF_BODY[path] ?? path, message]);
  const entryErrors = values.type === 'INDEFINITE' ? {} : validateEntries(values);
  return { ...Object.fromEntries(bodyErrors), ...validityErrors(values), ...entryErrors };
}

/** Hours, minutes or seconds that make no whole day: the policy keeps days, and says so rather than rounding. */
function validityErrors(values: PolicyFormValues): Record<string, string> {
  const amount = Number(values.validityAmount);
  if (values.validityAmount === '' || !Number.isFinite(amount) || amount <= 0 || validityDays(amount, values.validityUnit) !== null) return {};
  const unit = values.validityUnit;
  return { validityAmount: i18n.t('catalogue.policy.wholeDays', { perDay: i18n.t(`catalogue.duration.${unit}`, { count: unitsPerDay(unit) }) }) };
}

const policyBodyOf = (policy: LicensePolicy) => toBody(initialValues(policy)) as unknown as Record<string, unknown>;
const POLICY_LABELS: Record<string, string> = {
  name: 'catalogue.policy.name',
  type: 'catalogue.policy.type',
  publicName: 'catalogue.policy.publicName',
  licenseMaxValidDays: 'catalogue.policy.licenseMaxValid',
  refetchIntervalSeconds: 'catalogue.policy.refetchInterval',
  refetchBeforeExpirySeconds: 'catalogue.policy.refetchBeforeExpiry',
  maxDifferentMachinesCount: 'catalogue.policy.maxDifferentMachinesCount',
  maxDifferentMachinesIntervalHours: 'catalogue.policy.maxDifferentMachinesInterval',
  freeUpdatesPeriodDays: 'catalogue.policy.freeUpdatesPeriod',
  maxBorrowDays: 'catalogue.policy.maxBorrowDays',
  seatMode: 'catalogue.policy.seatMode',
  seatReassignHours: 'catalogue.policy.seatReassignHours',
  machinesPerUser: 'catalogue.policy.machinesPerUser',
  notes: 'catalogue.notes',
};

/**
 * Create or edit a license policy (spec sections 3, 5 and 9). An edit sends only what the person
 * changed, with If-Match (a change made meanwhile is shown, never reverted).
 */
export function LicensePolicyForm({ policy, onSaved, onCancel }: { policy: LicensePolicy | null; onSaved(policy: LicensePolicy): void; onCancel?(): void }) {
  const { t } = useTranslation();
  const save = useSaveLicensePolicy(policy?.id ?? null);
  const form = useForm<PolicyFormValues>({ initialValues: initialValues(policy), validate });
  const indefinite = form.values.type === 'INDEFINITE';
  const namedUsers = form.values.type !== 'FLOATING' && form.values.seatMode === 'USER';
  const usedLocales = form.values.publicNames.map((entry) => entry.locale);
  const types: PolicyType[] = policy?.type === 'INDEFINITE' ? ['INDEFINITE'] : [...SELECTABLE_POLICY_TYPES];

  const queryClient = useQueryClient();
  const done = (record: LicensePolicy) => {
    showSuccess(t(policy ? 'catalogue.saved' : 'catalogue.created', { name: policyLabel(record, t) }));
    onSaved(record);
  };
  const edit = useVersionedEdit<LicensePolicy>({
    path: policy ? `/license-policies/${policy.id}` : null,
    initial: policy,
    bodyOf: policyBodyOf,
    labels: POLICY_LABELS,
    onReload: (current) => {
      form.setValues(initialValues(current));
      form.resetDirty(initialValues(current));
    },
    onSaved: async (record) => {
      await queryClient.invalidateQueries({ queryKey: LICENSE_POLICIES_KEY });
      done(record);
    },
  });

  const submit = form.onSubmit(async (values) => {
    try {
      if (policy) await edit.save(toBody(values) as unknown as Record<string, unknown>);
      else done(await save.mutateAsync(toBody(values)));
    } catch (error) {
      if (!showFieldErrors(form, error)) showError(error, policy ? 'catalogue.updateFailed' : 'catalogue.createFailed');
    }
  });

  return (
    <form onSubmit={submit} noValidate data-testid="policy-form">
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label={t('catalogue.policy.name')}
            description={policy?.builtIn ? policyLabel(policy, t) : t('catalogue.policy.nameHint')}
            required
            disabled={policy?.builtIn}
            {...form.getInputProps('name')}
          />
          <Select
            label={t('catalogue.policy.type')}
            required
            allowDeselect={false}
            // Built-in policies keep their type (the server refuses a change): FLOATING_DEFAULT stays floating.
            disabled={policy?.builtIn || policy?.type === 'INDEFINITE'}
            data={types.map((type) => ({ value: type, label: t(`catalogue.policy.types.${type}`) }))}
            {...form.getInputProps('type')}
          />
        </SimpleGrid>

        {indefinite ? (
          <Text size="sm" c="dimmed">
            {t('catalogue.policy.noPublicName')}
          </Text>
        ) : (
          <Fieldset legend={t('catalogue.policy.publicName')}>
            <Stack gap="xs" className={classes.publicNames}>
              {form.values.publicNames.map((entry, index) => (
                <div key={index} className={classes.publicNameRow}>
                  <Select
                    className={classes.locale}
                    aria-label={t('catalogue.policy.locale')}
                    placeholder={t('catalogue.policy.locale')}
                    data={LOCALES.map((locale) => ({ value: locale, label: LOCALE_NAMES[locale], disabled: locale !== entry.locale && usedLocales.includes(locale) }))}
                    {...form.getInputProps(`publicNames.${index}.locale`)}
                  />
                  <TextInput className={classes.name} aria-label={t('catalogue.policy.publicNameText')} placeholder={t('catalogue.policy.publicNameText')} {...form.getInputProps(`publicNames.${index}.description`)} />
                  <ActionIcon className={classes.remove} variant="subtle" color="red" onClick={() => form.removeListItem('publicNames', index)} aria-label={t('common.delete')}>
                    <IconTrash size={16} />
                  </ActionIcon>
                </div>
              ))}
              <Group>
                <Button
                  variant="light"
                  size="xs"
                  leftSection={<IconPlus size={14} />}
                  disabled={form.values.publicNames.length >= LOCALES.length}
                  onClick={() => form.insertListItem('publicNames', { locale: LOCALES.find((locale) => !usedLocales.includes(locale)) ?? '', description: '' })}
                >
                  {t('catalogue.policy.addPublicName')}
                </Button>
              </Group>
            </Stack>
          </Fieldset>
        )}

        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Group align="flex-start" gap="xs" wrap="nowrap">
            <NumberInput label={t('catalogue.policy.licenseMaxValid')} required min={1} allowDecimal={form.values.validityUnit === 'months'} style={{ flex: 1 }} {...form.getInputProps('validityAmount')} />
            <Select
              label={t('catalogue.policy.unit')}
              w={130}
              allowDeselect={false}
              data={VALIDITY_UNITS.map((unit) => ({ value: unit, label: t(`catalogue.units.${unit}`) }))}
              {...form.getInputProps('validityUnit')}
            />
          </Group>
          <Select label={t('catalogue.policy.freeUpdatesPeriod')} allowDeselect={false} data={freeUpdatesOptions(t, policy?.freeUpdatesPeriodDays ?? null)} {...form.getInputProps('freeUpdatesPeriodDays')} />
          <Select label={t('catalogue.policy.refetchInterval')} required allowDeselect={false} styles={TALL_LIST} data={refetchOptions(t, policy?.refetchIntervalSeconds ?? null)} {...form.getInputProps('refetchIntervalSeconds')} />
          <Select
            label={t('catalogue.policy.refetchBeforeExpiry')}
            required
            allowDeselect={false}
            styles={TALL_LIST}
            data={refetchOptions(t, policy?.refetchBeforeExpirySeconds ?? null)}
            {...form.getInputProps('refetchBeforeExpirySeconds')}
          />
          <NumberInput label={t('catalogue.policy.maxDifferentMachinesCount')} required min={1} allowDecimal={false} {...form.getInputProps('maxDifferentMachinesCount')} />
          <Select
            label={t('catalogue.policy.maxDifferentMachinesInterval')}
            required
            allowDeselect={false}
            styles={TALL_LIST}
            data={machinesIntervalOptions(t, policy?.maxDifferentMachinesIntervalHours ?? null)}
            {...form.getInputProps('maxDifferentMachinesIntervalHours')}
          />
          {form.values.type === 'FLOATING' && (
            <NumberInput
              label={t('catalogue.policy.maxBorrowDays')}
              description={t('catalogue.policy.maxBorrowDaysHelp')}
              min={0}
              max={MAX_BORROW_DAYS}
              allowDecimal={false}
              allowNegative={false}
              {...form.getInputProps('maxBorrowDays')}
            />
          )}
          {form.values.type === 'FLOATING' && (
            <Select
              label={t('entitlements.overagePercent')}
              description={t('entitlements.overagePercentHelp')}
              allowDeselect={false}
              data={OVERAGE_PERCENTS.map((percent) => ({ value: String(percent), label: `${percent} %` }))}
              {...form.getInputProps('overagePercent')}
            />
          )}
          {form.values.type === 'FLOATING' && (
            <Select
              label={t('catalogue.policy.leaseMode')}
              description={t('catalogue.policy.leaseModeHelp')}
              allowDeselect={false}
              data={LEASE_MODES.map((mode) => ({ value: mode, label: t(`catalogue.policy.leaseMode${mode}`) }))}
              {...form.getInputProps('leaseMode')}
            />
          )}
          {form.values.type === 'FLOATING' && form.values.leaseMode === 'INSTANCE' && (
            <NumberInput
              label={t('catalogue.policy.leaseTtlSeconds')}
              description={t('catalogue.policy.leaseTtlSecondsHelp')}
              required
              min={LEASE_TTL_SECONDS.min}
              max={LEASE_TTL_SECONDS.max}
              allowDecimal={false}
              allowNegative={false}
              {...form.getInputProps('leaseTtlSeconds')}
            />
          )}
          {form.values.type !== 'FLOATING' && (
            <Select
              label={t('catalogue.policy.seatMode')}
              description={t('catalogue.policy.seatModeHelp')}
              allowDeselect={false}
              data={SEAT_MODES.map((mode) => ({ value: mode, label: t(`catalogue.policy.seatModes.${mode}`) }))}
              data-testid="policy-seat-mode"
              {...form.getInputProps('seatMode')}
            />
          )}
          {namedUsers && (
            <NumberInput
              label={t('catalogue.policy.machinesPerUser')}
              description={t('catalogue.policy.machinesPerUserHelp')}
              required
              min={1}
              max={MAX_MACHINES_PER_USER}
              allowDecimal={false}
              allowNegative={false}
              {...form.getInputProps('machinesPerUser')}
            />
          )}
          {namedUsers && (
            <NumberInput
              label={t('catalogue.policy.seatReassignHours')}
              description={t('catalogue.policy.seatReassignHoursHelp')}
              required
              min={0}
              max={MAX_SEAT_REASSIGN_HOURS}
              allowDecimal={false}
              allowNegative={false}
              {...form.getInputProps('seatReassignHours')}
            />
          )}
        </SimpleGrid>
        <Checkbox label={t('releases.betaUpdates')} description={t('releases.betaUpdatesHelp')} {...form.getInputProps('betaUpdates', { type: 'checkbox' })} />
        <Textarea label={t('catalogue.notes')} autosize minRows={2} {...form.getInputProps('notes')} />
        <FormActions editing={Boolean(policy)} saving={save.isPending || edit.saving} onCancel={onCancel} />
        {edit.conflictDialog}
      </Stack>
    </form>
  );
}
