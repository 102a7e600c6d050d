import { useState } from 'react';
import { Alert, Button, Group, Paper, SegmentedControl, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatJsonFile, type LicenseFileJson } from '@lm/contract/license-file';
import type { OfflineRequestSummary } from '@lm/contract/offline';
import { PageTitle } from '../../components/PageTitle.tsx';
import { downloadText } from '../../lib/download.ts';
import { showError } from '../../lib/notify.ts';
import { useActivateOffline, useDeactivateOffline, useMyLicenses, useReadOfflineRequest } from './api.ts';
import { OfflineFileField } from './OfflineFileField.tsx';

/** `/account/offline`: activate an offline machine from its request file, and free one with its deactivation proof (DESIGN.md section 6h). */
export default function OfflineActivationPage() {
  const { t } = useTranslation();
  const licenses = useMyLicenses();
  const options = (licenses.data?.items ?? []).map((license) => ({
    value: String(license.id),
    label: `#${license.id} ${license.productName} ${license.productVersion}${license.machineId ? ` · ${license.machineId}` : ''}`,
  }));
  const read = useReadOfflineRequest();
  const activate = useActivateOffline();
  const deactivate = useDeactivateOffline();
  const [request, setRequest] = useState('');
  const [summary, setSummary] = useState<OfflineRequestSummary | null>(null);
  const [using, setUsing] = useState<'tan' | 'license'>('tan');
  const [tan, setTan] = useState('');
  const [licenseId, setLicenseId] = useState<string | null>(null);
  const [file, setFile] = useState<LicenseFileJson | null>(null);
  const [proof, setProof] = useState('');
  const [proofLicense, setProofLicense] = useState<string | null>(null);
  const [freed, setFreed] = useState(false);

  const changeRequest = async (text: string) => {
    setRequest(text);
    setSummary(null);
    setFile(null);
    if (!text.trim()) return;
    try {
      setSummary(await read.mutateAsync(text));
    } catch (error) {
      showError(error, 'offline.readFailed');
    }
  };

  const submitActivation = async () => {
    try {
      setFile(await activate.mutateAsync(using === 'tan' ? { request, tan } : { request, licenseId: Number(licenseId) }));
    } catch (error) {
      showError(error, 'offline.activationFailed');
    }
  };

  const submitProof = async () => {
    setFreed(false);
    try {
      await deactivate.mutateAsync({ licenseId: Number(proofLicense), proof });
      setFreed(true);
      setProof('');
    } catch (error) {
      showError(error, 'offline.deactivationFailed');
    }
  };

  return (
    <Stack maw={760}>
      <PageTitle title={t('pages.offlineActivation')} />
      <Text c="dimmed">{t('offline.intro')}</Text>
      <Paper withBorder shadow="sm" p="lg" radius="md">
        <Stack>
          <Title order={2} size="h4">{t('offline.activateTitle')}</Title>
          <OfflineFileField label={t('offline.requestFile')} value={request} onChange={(text) => void changeRequest(text)} />
          {summary && (
            <Alert color="blue" title={t('offline.requestFor')}>
              {t('offline.requestSummary', { product: `${summary.product}${summary.version ? ` ${summary.version}` : ''}`, machine: summary.machineId })}
            </Alert>
          )}
          <SegmentedControl
            aria-label={t('offline.activateWith')}
            value={using}
            onChange={(value) => setUsing(value as 'tan' | 'license')}
            data={[
              { value: 'tan', label: t('offline.withTan') },
              { value: 'license', label: t('offline.withLicense') },
            ]}
            style={{ alignSelf: 'flex-start' }}
          />
          {using === 'tan' ? (
            <TextInput label={t('offline.tan')} value={tan} onChange={(event) => setTan(event.currentTarget.value)} required />
          ) : (
            <Select label={t('offline.license')} data={options} value={licenseId} onChange={setLicenseId} searchable required />
          )}
          <Group>
            <Button disabled={!summary || (using === 'tan' ? !tan.trim() : !licenseId)} loading={activate.isPending} onClick={() => void submitActivation()}>
              {t('offline.activate')}
            </Button>
            {file && summary && (
              <Button variant="light" onClick={() => downloadText(`${summary.product}-${summary.machineId}.json`, formatJsonFile(file), 'application/json')}>
                {t('offline.download')}
              </Button>
            )}
          </Group>
          {file && <Alert color="green">{t('offline.activated')}</Alert>}
        </Stack>
      </Paper>
      <Paper withBorder shadow="sm" p="lg" radius="md">
        <Stack>
          <Title order={2} size="h4">{t('offline.deactivateTitle')}</Title>
          <Text c="dimmed" size="sm">{t('offline.deactivateIntro')}</Text>
          <Select label={t('offline.license')} data={options} value={proofLicense} onChange={setProofLicense} searchable required />
          <OfflineFileField label={t('offline.proofFile')} value={proof} onChange={setProof} />
          <Button disabled={!proofLicense || !proof.trim()} loading={deactivate.isPending} onClick={() => void submitProof()} style={{ alignSelf: 'flex-start' }}>
            {t('offline.deactivate')}
          </Button>
          {freed && <Alert color="green">{t('offline.deactivated')}</Alert>}
        </Stack>
      </Paper>
    </Stack>
  );
}
