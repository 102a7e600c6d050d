import { Badge, Group, Loader, Stack, Text, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { LicenseEntitlements, LicenseEntitlementsUpdate } from '@lm/contract/entitlement';
import { Dialog } from './Dialog.tsx';
import { FormActions } from './FormActions.tsx';
import { api } from '../lib/api.ts';
import { showError, showSuccess } from '../lib/notify.ts';
import { showFieldErrors } from '../lib/server-errors.ts';
import { entitlementLabel, formatGrants, formatMetadata, parseGrantsText, parseMetadataText, MONOSPACE_INPUT } from '../lib/grants-text.ts';

const key = (id: number) => ['license-entitlements', id] as const;

/** A license's grants, metadata and the entitlements its file carries (DESIGN.md section 6g). */
function useLicenseEntitlements(id: number) {
  return useQuery({ queryKey: key(id), queryFn: ({ signal }) => api<LicenseEntitlements>(`/licenses/${id}/entitlements`, { signal }) });
}

function useUpdateLicenseEntitlements(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: LicenseEntitlementsUpdate) => api<LicenseEntitlements>(`/licenses/${id}/entitlements`, { method: 'PUT', body }),
    onSuccess: (data) => queryClient.setQueryData(key(id), data),
  });
}

interface Props {
  licenseId: number;
  productName: string;
  /** Administrators: the license's own grants and metadata are editable. */
  editable: boolean;
  onClose: () => void;
}

/** What a license's file carries (features, values, metadata) and, for administrators, what was added after the sale. */
export function LicenseEntitlementsDialog({ licenseId, productName, editable, onClose }: Props) {
  const { t } = useTranslation();
  const query = useLicenseEntitlements(licenseId);
  return (
    <Dialog onClose={onClose} title={t('entitlements.title', { product: productName })}>
      {query.data ? <Content licenseId={licenseId} data={query.data} editable={editable} onClose={onClose} /> : <Loader size="sm" />}
    </Dialog>
  );
}

function Content({ licenseId, data, editable, onClose }: Omit<Props, 'productName'> & { data: NonNullable<ReturnType<typeof useLicenseEntitlements>['data']> }) {
  const { t } = useTranslation();
  const update = useUpdateLicenseEntitlements(licenseId);
  const form = useForm({ initialValues: { entitlements: formatGrants(data.entitlements), metadata: formatMetadata(data.metadata) } });
  const submit = form.onSubmit(async (values) => {
    try {
      await update.mutateAsync({ entitlements: parseGrantsText(values.entitlements), metadata: parseMetadataText(values.metadata) });
      showSuccess(t('entitlements.saved'));
      onClose();
    } catch (error) {
      if (!showFieldErrors(form, error, ['entitlements', 'metadata'])) showError(error, 'entitlements.saveFailed');
    }
  });
  const resolved = Object.entries(data.resolved);
  const metadata = Object.entries({ ...data.tanMetadata, ...data.metadata });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <div>
          <Text size="sm" fw={500}>{t('entitlements.resolved')}</Text>
          <Group gap={4} mt={4} data-testid="license-entitlements">
            {resolved.length ? resolved.map(([name, value]) => <Badge key={name} variant="light" tt="none">{entitlementLabel(name, value)}</Badge>) : <Text size="sm" c="dimmed">{t('entitlements.none')}</Text>}
          </Group>
        </div>
        <div>
          <Text size="sm" fw={500}>{t('entitlements.metadata')}</Text>
          <Text size="sm" ff="monospace" data-testid="license-metadata" style={{ whiteSpace: 'pre-wrap' }}>
            {metadata.length ? metadata.map(([key, value]) => `${key}: ${value}`).join('\n') : t('entitlements.none')}
          </Text>
        </div>
        {editable && (
          <>
            <Textarea label={t('entitlements.ownGrants')} description={t('entitlements.grantsHelp')} autosize minRows={2} maxRows={8} styles={MONOSPACE_INPUT} {...form.getInputProps('entitlements')} />
            <Textarea label={t('entitlements.ownMetadata')} description={t('entitlements.metadataHelp')} autosize minRows={2} maxRows={8} styles={MONOSPACE_INPUT} {...form.getInputProps('metadata')} />
            <FormActions editing saving={update.isPending} onCancel={onClose} />
          </>
        )}
      </Stack>
    </form>
  );
}
