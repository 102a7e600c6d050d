import { Button, Checkbox, Group, NumberInput, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { email, TRIAL_EXTENSION_UNITS, type TrialExtensionUnit } from '@lm/contract';
import { changeMachine, MAX_EXTENSION_AMOUNT, todayOf } from '@lm/contract/license';
import { extensionLimits } from '../format.ts';
import { formatDate } from '../../../lib/format.ts';
import { formValidator } from '../../../lib/forms.ts';
import { showError, showSuccess } from '../../../lib/notify.ts';
import { showFieldErrors } from '../../../lib/server-errors.ts';
import { useQueryClient } from '@tanstack/react-query';
import { LICENSES_KEY, useChangeMachine, useExtend, useMove, type LicenseItem } from '../api/licenses.ts';
import { useVersionedEdit } from '../../../lib/use-versioned-edit.tsx';
import { LocalizedDateInput } from '../../../components/LocalizedDates.tsx';
import { Dialog } from '../../../components/Dialog.tsx';
import { FormActions } from '../../../components/FormActions.tsx';

interface DialogProps {
  license: LicenseItem;
  onClose: () => void;
}

const extendForm = z.object({ amount: z.number().int().min(1).max(MAX_EXTENSION_AMOUNT), unit: z.enum(TRIAL_EXTENSION_UNITS) });

/**
 * Extend a trial by days, weeks or months (all three always offered, product spec), the amount
 * limited to what its latest end allows; asking for more is told the spec's "You cannot extend the
 * license this far into the future" with the latest end.
 */
export function ExtendDialog({ license, onClose }: DialogProps) {
  const { t } = useTranslation();
  const extend = useExtend();
  const limits = extensionLimits(license, todayOf());
  const tooFar = () =>
    license.latestTrialEnd ? t('errors.ERR_EXTEND_TOO_FAR_latest', { latest: formatDate(license.latestTrialEnd) }) : t('errors.ERR_EXTEND_TOO_FAR');
  const form = useForm<{ amount: number | string; unit: TrialExtensionUnit }>({
    initialValues: { amount: Math.min(7, limits.days) || 1, unit: 'days' },
    validateInputOnChange: true,
    validate: (values) => {
      const errors = formValidator(extendForm)(values);
      if (Number(values.amount) > limits[values.unit]) errors.amount = tooFar();
      return errors;
    },
  });
  const unit = form.getValues().unit;
  const submit = form.onSubmit(async ({ amount, unit }) => {
    try {
      await extend.mutateAsync({ id: license.id, amount: Number(amount), unit });
      showSuccess(t('licenses.extended'));
      onClose();
    } catch (error) {
      if (!showFieldErrors(form, error)) showError(error, 'licenses.updateFailed');
    }
  });
  return (
    <Dialog onClose={onClose} title={t('licenses.extendTitle', { product: license.productName })}>
      <form onSubmit={submit} noValidate>
        <Stack>
          {license.latestTrialEnd && <Text size="sm">{t('licenses.extendLatest', { date: formatDate(license.latestTrialEnd) })}</Text>}
          {limits.days === 0 ? (
            <>
              <Text size="sm" c="dimmed" data-testid="extend-none-left">
                {t('licenses.extendNoneLeft')}
              </Text>
              <Group justify="flex-end">
                <Button variant="default" onClick={onClose}>
                  {t('common.close')}
                </Button>
              </Group>
            </>
          ) : (
            <>
              <NumberInput
                label={t('licenses.extendAmount')}
                description={limits[unit] > 0 ? t('licenses.extendAtMost', { count: limits[unit], unit: t(`licenses.units.${unit}`) }) : undefined}
                min={1}
                max={Math.max(1, limits[unit])}
                clampBehavior="none"
                allowDecimal={false}
                data-autofocus
                {...form.getInputProps('amount')}
              />
              <SegmentedControl
                data={TRIAL_EXTENSION_UNITS.map((value) => ({ value, label: t(`licenses.units.${value}`) }))}
                {...form.getInputProps('unit')}
                onChange={(value) => {
                  form.setFieldValue('unit', value as TrialExtensionUnit);
                  form.validateField('amount');
                }}
              />
              <FormActions submitLabel={t('licenses.extend')} saving={extend.isPending} onCancel={onClose} />
            </>
          )}
        </Stack>
      </form>
    </Dialog>
  );
}

/** Bind the license to another machine. */
export function ChangeMachineDialog({ license, onClose }: DialogProps) {
  const { t } = useTranslation();
  const change = useChangeMachine();
  const form = useForm({ initialValues: { machineId: '' }, validate: formValidator(changeMachine) });
  const submit = form.onSubmit(async ({ machineId }) => {
    try {
      await change.mutateAsync({ id: license.id, machineId: machineId.trim() });
      showSuccess(t('licenses.machineChanged'));
      onClose();
    } catch (error) {
      if (!showFieldErrors(form, error)) showError(error, 'licenses.updateFailed');
    }
  });
  return (
    <Dialog onClose={onClose} title={t('licenses.changeMachineTitle', { product: license.productName })}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm">{t('licenses.currentMachine', { machine: license.machineId ?? '–' })}</Text>
          <TextInput label={t('licenses.newMachineId')} required data-autofocus autoComplete="off" {...form.getInputProps('machineId')} />
          <FormActions submitLabel={t('licenses.changeMachine')} saving={change.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Dialog>
  );
}

/** Hand the license to another confirmed account. */
export function MoveDialog({ license, onClose }: DialogProps) {
  const { t } = useTranslation();
  const move = useMove();
  const form = useForm({ initialValues: { email: '' }, validate: formValidator(z.object({ email })) });
  const submit = form.onSubmit(async (values) => {
    try {
      await move.mutateAsync({ id: license.id, email: values.email.trim() });
      showSuccess(t('licenses.moved', { email: values.email.trim() }));
      onClose();
    } catch (error) {
      if (!showFieldErrors(form, error)) showError(error, 'licenses.updateFailed');
    }
  });
  return (
    <Dialog onClose={onClose} title={t('licenses.moveTitle', { product: license.productName })}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm">{t('licenses.moveText')}</Text>
          <TextInput label={t('licenses.targetEmail')} type="email" required data-autofocus {...form.getInputProps('email')} />
          <FormActions submitLabel={t('licenses.move')} saving={move.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Dialog>
  );
}

const adminFields = (license: LicenseItem) => ({ validUntil: license.validUntil || null, permanent: license.permanent, revoked: license.revoked });
const ADMIN_EDIT_LABELS = { validUntil: 'licenses.validUntil', permanent: 'licenses.permanent', revoked: 'licenses.revokedLabel' };

/**
 * The administrator's edit: valid until, permanent, revoked. Only what the person changed is sent,
 * with the version the dialog shows (If-Match): a revocation made meanwhile is never undone silently.
 */
export function AdminEditDialog({ license, onClose }: DialogProps) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const form = useForm({ initialValues: adminFields(license) });
  const edit = useVersionedEdit<LicenseItem>({
    path: `/licenses/${license.id}`,
    initial: license,
    bodyOf: adminFields,
    labels: ADMIN_EDIT_LABELS,
    formatValue: (field, value) => (field === 'validUntil' ? (value ? formatDate(String(value)) : t('licenses.unlimited')) : value ? t('common.yes') : t('common.no')),
    onReload: (current) => {
      form.setValues(adminFields(current));
      form.resetDirty(adminFields(current));
    },
    onSaved: async () => {
      await queryClient.invalidateQueries({ queryKey: LICENSES_KEY });
      showSuccess(t('licenses.saved'));
      onClose();
    },
  });
  const submit = form.onSubmit(async (values) => {
    try {
      await edit.save({ validUntil: values.validUntil || null, permanent: values.permanent, revoked: values.revoked });
    } catch (error) {
      if (!showFieldErrors(form, error)) showError(error, 'licenses.updateFailed');
    }
  });
  return (
    <Dialog onClose={onClose} title={t('licenses.editTitle', { product: license.productName })}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <LocalizedDateInput label={t('licenses.validUntil')} clearable placeholder={t('licenses.unlimited')} {...form.getInputProps('validUntil')} />
          <Checkbox label={t('licenses.permanent')} {...form.getInputProps('permanent', { type: 'checkbox' })} />
          <Checkbox label={t('licenses.revokedLabel')} color="red" {...form.getInputProps('revoked', { type: 'checkbox' })} />
          <FormActions editing saving={edit.saving} onCancel={onClose} />
        </Stack>
      </form>
      {edit.conflictDialog}
    </Dialog>
  );
}
