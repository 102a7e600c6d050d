import { useMemo, useState } from 'react';
import { Button, Group, Paper, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { openConfirmModal } from '../../components/modals.tsx';
import { useTranslation } from 'react-i18next';
import { TAN_BULK_COUNTS } from '@lm/contract/tan';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAuth } from '../../lib/auth.ts';
import { formValidator } from '../../lib/forms.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { showFieldErrors } from '../../lib/server-errors.ts';
import { useCreateTans, useTanLimits, useTans, type TanItem } from './api/tans.ts';
import { RecentTans } from './components/RecentTans.tsx';
import { TanFormFields } from './components/TanFormFields.tsx';
import { emptyTanForm, TAN_FIELD_LABELS, tanFormSchema, toTanBody, type TanFormValues } from './form.ts';

/** The latest TANs shown until a batch is created here. */
const LATEST_SHOWN = 10;

/** `/tans/create`: one TAN or many (count from a dropdown, with a confirmation), and the recent-TANs table. */
export default function TanCreatePage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const isDistributor = user?.accessRole === 'DISTRIBUTOR';
  const limits = useTanLimits();
  const create = useCreateTans();
  const [mode, setMode] = useState<'single' | 'many'>('single');
  const [count, setCount] = useState<string>(String(TAN_BULK_COUNTS[2]));
  const [recent, setRecent] = useState<TanItem[]>([]);
  const latest = useTans({ offset: 0, limit: LATEST_SHOWN, sort: '-createdAt' });
  const schema = useMemo(() => tanFormSchema(limits.data?.maxLicenseCount ?? Number.MAX_SAFE_INTEGER), [limits.data]);
  const form = useForm<TanFormValues>({
    initialValues: { ...emptyTanForm, distributorId: isDistributor && user ? user.id : null },
    validate: formValidator(schema, TAN_FIELD_LABELS),
  });

  const submit = form.onSubmit((values) => {
    const howMany = mode === 'single' ? 1 : Number(count);
    const run = async () => {
      try {
        const result = await create.mutateAsync({ count: howMany, body: toTanBody(values) });
        setRecent(result.items);
        showSuccess(t('tans.created', { count: result.totalCount }));
      } catch (error) {
        if (!showFieldErrors(form, error, ['entitlements', 'metadata'])) showError(error, 'tans.createFailed');
      }
    };
    if (howMany === 1) return void run();
    openConfirmModal({
      title: t('tans.confirmManyTitle'),
      children: <Text size="sm">{t('tans.confirmManyText', { count: howMany })}</Text>,
      labels: { confirm: t('tans.confirmManyButton', { count: howMany }), cancel: t('common.cancel') },
      onConfirm: () => void run(),
    });
  });

  return (
    <Stack>
      <PageTitle title={t('pages.tanCreate')} />
      <Paper withBorder p="md" radius="md">
        <form onSubmit={submit} noValidate aria-label={t('pages.tanCreate')}>
          <Stack>
            <Group align="end" wrap="wrap">
              <SegmentedControl
                value={mode}
                onChange={(value) => setMode(value as 'single' | 'many')}
                data={[
                  { value: 'single', label: t('tans.single') },
                  { value: 'many', label: t('tans.many') },
                ]}
                aria-label={t('tans.howMany')}
              />
              {mode === 'many' && (
                <Select
                  label={t('tans.count')}
                  data={TAN_BULK_COUNTS.map((value) => String(value))}
                  value={count}
                  onChange={(value) => value && setCount(value)}
                  allowDeselect={false}
                  w={140}
                />
              )}
            </Group>
            <TanFormFields
              form={form}
              maxLicenseCount={limits.data?.maxLicenseCount}
              canChooseDistributor={!isDistributor}
            />
            <Group justify="flex-end">
              <Button type="submit" loading={create.isPending}>
                {mode === 'single' ? t('tans.createOne') : t('tans.createMany', { count: Number(count) })}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      <RecentTans tans={recent.length ? recent : (latest.data?.items ?? [])} justCreated={recent.length > 0} />
    </Stack>
  );
}
