import { useState } from 'react';
import { Button, Paper, SegmentedControl, Input, Stack, Text } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { LICENSE_FILE_FORMATS, type LicenseFileFormat } from '@lm/contract/license-file';
import type { AnyLicLink } from '@lm/contract/anylic';
import { SETTING_DEFAULTS } from '@lm/contract';
import { LocalizedDates, pickerDates } from '../../components/LocalizedDates.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { ApiError } from '../../lib/api.ts';
import { formValidator } from '../../lib/forms.ts';
import { showError } from '../../lib/notify.ts';
import { useAppSettings } from '../../lib/settings.ts';
import { useCreateAnyLicLink } from './api/createAnyLicLink.ts';
import { AnyLicResult } from './AnyLicResult.tsx';
import { ProductSelect } from './ProductSelect.tsx';

interface FormValues {
  format: LicenseFileFormat;
  productId: string | null;
  validUntil: string | null;
}


const formSchema = z.object({
  format: z.enum(LICENSE_FILE_FORMATS),
  productId: z.string().min(1),
  validUntil: z.string().min(1),
});

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** `/tools/create-anylic`: a download link for a license file that works on any machine. */
export default function CreateAnyLicPage() {
  const { t } = useTranslation();
  const settings = useAppSettings();
  const create = useCreateAnyLicLink();
  const [created, setCreated] = useState<{ link: AnyLicLink; validUntil: string } | null>(null);
  const maxDays = Number(settings.data?.['anylic.maxDays'] ?? SETTING_DEFAULTS['anylic.maxDays']);
  const today = new Date();
  const latest = new Date(today.getTime() + maxDays * 86_400_000);

  const form = useForm<FormValues>({
    initialValues: { format: 'lic', productId: null, validUntil: null },
    validate: formValidator(formSchema),
  });

  const submit = form.onSubmit(async (values) => {
    setCreated(null);
    try {
      const validUntil = values.validUntil!;
      setCreated({ link: await create.mutateAsync({ format: values.format, productId: Number(values.productId), validUntil }), validUntil });
    } catch (error) {
      for (const detail of error instanceof ApiError ? (error.body?.details ?? []) : []) {
        if (detail.path === 'validUntil') form.setFieldError('validUntil', t('anylic.validUntilHint', { days: maxDays }));
        if (detail.path === 'productId') form.setFieldError('productId', t('validation.notAllowed', { field: t('anylic.product') }));
      }
      showError(null, 'anylic.creationFailed');
    }
  });

  return (
    <LocalizedDates>
      <Stack maw={720}>
        <PageTitle title={t('pages.createAnyLic')} />
        <Text c="dimmed">{t('anylic.intro')}</Text>
        <Paper withBorder shadow="sm" p="lg" radius="md">
          <form onSubmit={submit} noValidate>
            <Stack>
              <Input.Wrapper label={t('anylic.format')} required>
                <div>
                  <SegmentedControl
                    aria-label={t('anylic.format')}
                    data={[
                      { value: 'lic', label: t('anylic.formatLic') },
                      { value: 'json', label: t('anylic.formatJson') },
                    ]}
                    {...form.getInputProps('format')}
                  />
                </div>
              </Input.Wrapper>
              <ProductSelect label={t('anylic.product')} placeholder={t('anylic.productPlaceholder')} required {...form.getInputProps('productId')} />
              <DatePickerInput
                label={t('anylic.validUntil')}
                description={t('anylic.validUntilHint', { days: maxDays })}
                placeholder={t('anylic.validUntilPlaceholder')}
                required
                clearable
                minDate={isoDay(today)}
                maxDate={isoDay(latest)}
                valueFormatter={pickerDates}
                {...form.getInputProps('validUntil')}
              />
              <Button type="submit" loading={create.isPending} style={{ alignSelf: 'flex-start' }}>
                {t('anylic.create')}
              </Button>
            </Stack>
          </form>
        </Paper>
        {created && <AnyLicResult link={created.link} validUntil={created.validUntil} />}
      </Stack>
    </LocalizedDates>
  );
}
