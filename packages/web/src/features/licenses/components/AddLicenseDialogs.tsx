import { useMemo, useState } from 'react';
import { Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { activateLicense, addDays, machineId, todayOf, trialReachDays } from '@lm/contract/license';
import { formValidator } from '../../../lib/forms.ts';
import { showError, showSuccess } from '../../../lib/notify.ts';
import { showFieldErrors } from '../../../lib/server-errors.ts';
import { useActivate, useAddTemporary, useTemporaryOptions } from '../api/licenses.ts';
import { LocalizedDateInput } from '../../../components/LocalizedDates.tsx';
import { Dialog } from '../../../components/Dialog.tsx';
import { FormActions } from '../../../components/FormActions.tsx';

/** Activate a license: TAN code plus machine id (the code is normalized: case, spaces and dashes do not matter). */
export function ActivateDialog({ onClose, tan = '' }: { onClose: () => void; tan?: string }) {
  const { t } = useTranslation();
  const activate = useActivate();
  const form = useForm({ initialValues: { tan, machineId: '' }, validate: formValidator(activateLicense) });
  const submit = form.onSubmit(async (values) => {
    try {
      const license = await activate.mutateAsync(activateLicense.parse(values));
      showSuccess(t('licenses.activated', { product: license.productName }));
      onClose();
    } catch (error) {
      if (!showFieldErrors(form, error)) showError(error, 'licenses.activationFailed');
    }
  });
  return (
    <Dialog onClose={onClose} title={t('licenses.activateTitle')}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput label={t('licenses.tanCode')} placeholder="xxxx-xxxx-xxxx" required data-autofocus autoComplete="off" styles={{ input: { fontFamily: 'monospace' } }} {...form.getInputProps('tan')} />
          <TextInput label={t('licenses.machineId')} description={t('licenses.machineIdHelp')} required autoComplete="off" {...form.getInputProps('machineId')} />
          <FormActions submitLabel={t('licenses.activate')} saving={activate.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Dialog>
  );
}

/** Add a temporary (trial) license: product, machine id and valid until, at most the configured days ahead. */
export function TemporaryDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const add = useAddTemporary();
  const options = useTemporaryOptions(true);
  const today = todayOf();
  const [productId, setProductId] = useState<string | null>(null);
  const products = options.data?.products ?? [];
  const product = products.find((candidate) => String(candidate.id) === productId);
  // A trial reaches no further than the product's trial days, nor than the configured maximum.
  const maxDays = trialReachDays(product?.trialDays ?? null, options.data?.maxDays ?? 30);
  const latest = addDays(today, maxDays);
  const schema = useMemo(
    () =>
      z.object({
        productId: z.string().min(1),
        machineId,
        validUntil: z
          .string()
          .min(1)
          .refine((date) => date >= today && date <= latest, 'validation.temporaryMaxDays'),
      }),
    [today, latest],
  );
  const form = useForm<{ productId: string | null; machineId: string; validUntil: string | null }>({
    initialValues: { productId: null, machineId: '', validUntil: null },
    validate: formValidator(schema),
    // The longest trial the product offers is the suggested validity.
    onValuesChange: (values) => {
      if (values.productId === productId) return;
      setProductId(values.productId);
      const chosen = products.find((candidate) => String(candidate.id) === values.productId);
      if (chosen) form.setFieldValue('validUntil', addDays(today, trialReachDays(chosen.trialDays, options.data?.maxDays ?? 30)));
    },
  });

  const submit = form.onSubmit(async (values) => {
    try {
      const license = await add.mutateAsync({ productId: Number(values.productId), machineId: values.machineId.trim(), validUntil: values.validUntil! });
      showSuccess(t('licenses.temporaryAdded', { product: license.productName }));
      onClose();
    } catch (error) {
      if (!showFieldErrors(form, error)) showError(error, 'licenses.addFailed');
    }
  });
  return (
    // Wider than the default: in German the two buttons did not fit side by side at a laptop's width.
    <Dialog onClose={onClose} title={t('licenses.temporaryTitle')} size="lg">
      <form onSubmit={submit} noValidate>
        <Stack>
          <Select
            label={t('licenses.product')}
            required
            searchable
            data={products.map((product) => ({ value: String(product.id), label: product.formattedName }))}
            nothingFoundMessage={t('licenses.noTrialProducts')}
            data-autofocus
            {...form.getInputProps('productId')}
          />
          <TextInput label={t('licenses.machineId')} description={t('licenses.machineIdHelp')} required autoComplete="off" {...form.getInputProps('machineId')} />
          <LocalizedDateInput
            label={t('licenses.validUntil')}
            description={t('licenses.temporaryMax', { days: maxDays })}
            required
            minDate={today}
            maxDate={latest}
            {...form.getInputProps('validUntil')}
          />
          <Text size="xs" c="dimmed">
            {t('licenses.temporaryHelp')}
          </Text>
          <FormActions submitLabel={t('licenses.addTemporary')} saving={add.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Dialog>
  );
}
