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
import { useAdminUpdate, useChangeMachine, useExtend, useMove, type LicenseItem } from '../api/licenses.ts';
import { LocalizedDateInput } from '../../../components/LocalizedDates.tsx';
import { Dialog } from '../../../components/Dialog.tsx';
import { FormActions } from '../../../components/FormActions.tsx';

interface DialogProps {
  license: LicenseItem;
  onClose: () => void;
}

const extendForm = z.object({ amount: z.number().int().min(1).max(MAX_EXTENSION_AMOUNT), unit: z.enum(TRIAL_EXTENSION_UNITS) });

/** Extend a trial by days, weeks or months, offering only what its latest end allows. */
export function ExtendDialog({ license, onClose }: DialogProps) {
  const { t } = useTranslation();
  const extend = useExtend();
  const limits = extensionLimits(license, todayOf());
  const units = TRIAL_EXTENSION_UNITS.filter((unit) => limits[unit] > 0);
  const form = useForm<{ amount: number | string; unit: TrialExtensionUnit }>({
    initialValues: { amount: Math.min(7, limits.days) || 1, unit: 'days' },
    validate: (values) => {
      const errors = formValidator(extendForm)(values);
      if (Number(values.amount) > limits[values.unit]) errors.amount = t('licenses.extendAtMost', { count: limits[values.unit], unit: t(`licenses.units.${values.unit}`) });
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
          {units.length === 0 ? (
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
              <NumberInput label={t('licenses.extendAmount')} min={1} max={limits[unit]} allowDecimal={false} data-autofocus {...form.getInputProps('amount')} />
              <SegmentedControl data={units.map((value) => ({ value, label: t(`licenses.units.${value}`) }))} {...form.getInputProps('unit')} />
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

/** The administrator's edit: valid until, permanent, revoked. */
export function AdminEditDialog({ license, onClose }: DialogProps) {
  const { t } = useTranslation();
  const update = useAdminUpdate();
  const form = useForm({ initialValues: { validUntil: license.validUntil, permanent: license.permanent, revoked: license.revoked } });
  const submit = form.onSubmit(async (values) => {
    try {
      await update.mutateAsync({ id: license.id, validUntil: values.validUntil || null, permanent: values.permanent, revoked: values.revoked });
      showSuccess(t('licenses.saved'));
      onClose();
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
          <FormActions editing saving={update.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Dialog>
  );
}
