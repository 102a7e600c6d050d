import { ActionIcon, Button, Checkbox, Fieldset, Group, NumberInput, Select, SimpleGrid, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LOCALES, LOCALE_NAMES } from '@lm/contract';
import { LEASE_MODES, LEASE_TTL_SECONDS, MAX_BORROW_DAYS, MAX_MACHINES_PER_USER, MAX_SEAT_REASSIGN_HOURS, SEAT_MODES, SELECTABLE_POLICY_TYPES, type LicensePolicy, type PolicyType } from '@lm/contract/license-policy';
import { OVERAGE_PERCENTS } from '@lm/contract/entitlement';
import { grantsSummary, MONOSPACE_INPUT } from '../../lib/grants-text.ts';
import { policyLabel } from '../../lib/license-policies.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { showFieldErrors } from '../../lib/server-errors.ts';
import { useQueryClient } from '@tanstack/react-query';
import { LICENSE_POLICIES_KEY } from '../../lib/license-policies.ts';
import { useVersionedEdit } from '../../lib/use-versioned-edit.tsx';
import { useSaveLicensePolicy } from './api/save-license-policy.ts';
import { freeUpdatesOptions, machinesIntervalOptions, refetchOptions, VALIDITY_UNITS } from './policy-options.ts';
import { initialValues, toBody, validate, type PolicyFormValues } from './policy-form-values.ts';
import { FormActions } from '../../components/FormActions.tsx';
import classes from './LicensePolicyForm.module.css';

/** The long lists of intervals show more at once than a select's usual 220 px (the theme's). */
const TALL_LIST = { options: { maxHeight: 320 } };

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
  entitlements: 'catalogue.policy.grants',
  notes: 'catalogue.notes',
};

/** Grants in the conflict dialog on one line, as the policy list shows them. */
const formatPolicyValue = (field: string, value: unknown) => (field === 'entitlements' && Array.isArray(value) && value.length ? grantsSummary(value as LicensePolicy['entitlements']) : undefined);

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
    formatValue: formatPolicyValue,
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
      if (!showFieldErrors(form, error, ['entitlements'])) showError(error, policy ? 'catalogue.updateFailed' : 'catalogue.createFailed');
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
        <Textarea
          label={t('catalogue.policy.grants')}
          description={
            <>
              {t('catalogue.policy.grantsHint')}
              <br />
              {t('entitlements.grantsHelp')}
            </>
          }
          autosize
          minRows={2}
          maxRows={8}
          styles={MONOSPACE_INPUT}
          data-testid="policy-entitlements"
          {...form.getInputProps('entitlements')}
        />
        <Checkbox label={t('releases.betaUpdates')} description={t('releases.betaUpdatesHelp')} {...form.getInputProps('betaUpdates', { type: 'checkbox' })} />
        <Textarea label={t('catalogue.notes')} autosize minRows={2} {...form.getInputProps('notes')} />
        <FormActions editing={Boolean(policy)} saving={save.isPending || edit.saving} onCancel={onCancel} />
        {edit.conflictDialog}
      </Stack>
    </form>
  );
}
