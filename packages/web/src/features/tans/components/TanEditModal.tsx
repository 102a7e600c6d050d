import { useMemo, useState } from 'react';
import { Checkbox, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { openConfirmModal } from '../../../components/modals.tsx';
import { useTranslation } from 'react-i18next';
import { extendedFreeUpdatesUntil, todayOf } from '@lm/contract/license';
import { formatTanCode } from '@lm/contract/tan';
import { ChangeLogLink } from '../../../components/ChangeLogLink.tsx';
import { formValidator } from '../../../lib/forms.ts';
import { showError, showSuccess } from '../../../lib/notify.ts';
import { showFieldErrors } from '../../../lib/server-errors.ts';
import { useTansChanged, type TanItem } from '../api/tans.ts';
import { useVersionedEdit } from '../../../lib/use-versioned-edit.tsx';
import { useAllLicensePolicies } from '../../../lib/license-policies.ts';
import { TAN_FIELD_LABELS, tanFormSchema, toTanBody, toTanForm, type TanFormValues } from '../form.ts';
import { TanFormFields } from './TanFormFields.tsx';
import { formatDate } from '../../../lib/format.ts';
import { grantsSummary } from '../../../lib/grants-text.ts';
import { Dialog } from '../../../components/Dialog.tsx';
import { FormActions } from '../../../components/FormActions.tsx';

interface Props {
  tan: TanItem;
  maxLicenseCount: number | undefined;
  canChooseDistributor: boolean;
  onClose: () => void;
}

/** The TAN's editable fields as the change names them, for sending only what changed. */
const tanBodyOf = (tan: TanItem) => ({ ...toTanBody(toTanForm(tan)), revoked: tan.revoked, suspended: tan.suspended });

const TAN_CONFLICT_LABELS: Record<string, string> = { ...TAN_FIELD_LABELS, revoked: 'tans.revoked', suspended: 'tans.suspended' };
/** Grants in the conflict dialog on one line (by default a list of objects read "[object Object]"). */
const formatTanValue = (field: string, value: unknown) => (field === 'entitlements' && Array.isArray(value) && value.length ? grantsSummary(value as TanItem['entitlements']) : undefined);

/**
 * Edits a TAN; picking another product asks whether to extend its free updates (spec section 4).
 * Only the fields the person changed are sent, with the version the dialog shows (If-Match): a
 * change made meanwhile (a shop's renewal) is shown in a conflict dialog, never reverted.
 */
export function TanEditModal({ tan, maxLicenseCount, canChooseDistributor, onClose }: Props) {
  const { t } = useTranslation();
  const tansChanged = useTansChanged();
  const policies = useAllLicensePolicies();
  const schema = useMemo(() => tanFormSchema(maxLicenseCount ?? Number.MAX_SAFE_INTEGER), [maxLicenseCount]);
  const form = useForm<TanFormValues>({ initialValues: toTanForm(tan), validate: formValidator(schema, TAN_FIELD_LABELS) });
  const [revoked, setRevoked] = useState(tan.revoked);
  const [suspended, setSuspended] = useState(tan.suspended);
  const [revokeLicenses, setRevokeLicenses] = useState(false);
  const edit = useVersionedEdit<TanItem>({
    path: `/tans/${tan.id}`,
    initial: tan,
    bodyOf: tanBodyOf,
    labels: TAN_CONFLICT_LABELS,
    formatValue: formatTanValue,
    onReload: (current) => {
      form.setValues(toTanForm(current));
      form.resetDirty(toTanForm(current));
      setRevoked(current.revoked);
      setSuspended(current.suspended);
    },
    onSaved: async () => {
      await tansChanged();
      showSuccess(t('tans.updated'));
      onClose();
    },
  });
  // Only a revocation made now can take the licenses with it.
  const revoking = revoked && !tan.revoked && tan.activatedCount > 0;

  const askAboutFreeUpdates = (productId: number | null, defaultPolicyId: number | null) => {
    if (productId === null || productId === tan.productId) return;
    // The TAN's own policy, else the new product's default one, decides the period.
    const policyId = form.getValues().licensePolicyId ?? (defaultPolicyId === null ? null : String(defaultPolicyId));
    const period = policies.data?.find((policy) => String(policy.id) === policyId)?.freeUpdatesPeriodDays ?? null;
    const extended = extendedFreeUpdatesUntil(todayOf(), period);
    const shown = formatDate(extended);
    openConfirmModal({
      title: t('tans.extendFreeUpdatesTitle'),
      children: <Text size="sm">{t('tans.extendFreeUpdatesText', { date: shown })}</Text>,
      labels: { confirm: t('tans.extendFreeUpdatesYes'), cancel: t('tans.extendFreeUpdatesNo') },
      onConfirm: () => form.setFieldValue('freeUpdatesUntil', extended),
    });
  };

  const submit = form.onSubmit(async (values) => {
    try {
      await edit.save({ ...toTanBody(values), revoked, suspended, ...(revoking && revokeLicenses ? { revokeLicenses: true } : {}) });
    } catch (error) {
      if (!showFieldErrors(form, error, ['entitlements', 'metadata'])) showError(error, 'tans.updateFailed');
    }
  });

  return (
    <Dialog onClose={onClose} size="xl" title={t('tans.editTitle', { code: formatTanCode(tan.code) })}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <ChangeLogLink model="Tan" recordId={tan.id} />
          <TanFormFields
            form={form}
            maxLicenseCount={maxLicenseCount}
            canChooseDistributor={canChooseDistributor}
            labels={{ policy: tan.licensePolicyName }}
            onProductChange={askAboutFreeUpdates}
          />
          <Checkbox
            label={t('tans.suspended')}
            description={t('tans.suspendedHelp')}
            checked={suspended}
            onChange={(event) => setSuspended(event.currentTarget.checked)}
          />
          <Checkbox label={t('tans.revoked')} checked={revoked} onChange={(event) => setRevoked(event.currentTarget.checked)} />
          {revoking && (
            <Checkbox
              ml="xl"
              label={t('tans.revokeLicenses', { count: tan.activatedCount })}
              checked={revokeLicenses}
              onChange={(event) => setRevokeLicenses(event.currentTarget.checked)}
            />
          )}
          <FormActions editing saving={edit.saving} onCancel={onClose} />
        </Stack>
      </form>
      {edit.conflictDialog}
    </Dialog>
  );
}
