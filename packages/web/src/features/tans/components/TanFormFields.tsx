import { NumberInput, SimpleGrid, Textarea, TagsInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { User } from '@lm/contract';
import { api } from '../../../lib/api.ts';
import type { UseFormReturnType } from '@mantine/form';
import { IconLock } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { parseTanTags, TAN_MAX_TAGS } from '@lm/contract/tan';
import type { TanFormValues } from '../form.ts';
import { ProductSelect } from '../../../components/ProductSelect.tsx';
import { UserSelect, userOptionLabel } from '../../../components/UserSelect.tsx';
import forbidden from '../../../components/FieldAccess.module.css';
import { PolicySelect } from '../../../components/PolicySelect.tsx';
import { useTanTags } from '../api/tans.ts';
import { LocalizedDateInput } from '../../../components/LocalizedDates.tsx';
import { MONOSPACE_INPUT } from '../../../lib/grants-text.ts';

export interface TanFormFieldsProps {
  form: UseFormReturnType<TanFormValues>;
  maxLicenseCount: number | undefined;
  /** False for a distributor: the field shows its own account and is styled as forbidden. */
  canChooseDistributor: boolean;
  labels?: { policy?: string | null };
  /** Called when the user picks another product (the edit form asks about free updates then). */
  onProductChange?: (productId: number | null, defaultPolicyId: number | null) => void;
}

/** The TAN fields of the create and edit forms (spec section 3): product, policy, count, distributor, free updates, tags, notes. */
export function TanFormFields({ form, maxLicenseCount, canChooseDistributor, labels, onProductChange }: TanFormFieldsProps) {
  const { t } = useTranslation();
  const product = form.getInputProps('productId');
  // The tags already in use, so that a TAN is tagged like its siblings rather than with a near-duplicate.
  const knownTags = useTanTags();
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <ProductSelect
          label={t('tans.product')}
          required
          inactiveHint={t('tans.productInactive')}
          {...product}
          value={form.values.productId}
          onChange={(productId, chosen) => {
            form.setFieldValue('productId', productId);
            onProductChange?.(productId, chosen?.defaultLicensePolicyId ?? null);
          }}
        />
        <PolicySelect
          label={t('tans.policy')}
          placeholder={t('tans.policyFromProduct')}
          currentLabel={labels?.policy}
          {...form.getInputProps('licensePolicyId')}
        />
        <NumberInput
          label={t('tans.licenseCount')}
          description={maxLicenseCount ? t('tans.licenseCountMax', { max: maxLicenseCount }) : undefined}
          required
          min={1}
          max={maxLicenseCount}
          allowDecimal={false}
          allowNegative={false}
          {...form.getInputProps('licenseCount')}
        />
        {canChooseDistributor ? (
          <UserSelect
            label={t('tans.distributor')}
            placeholder={t('tans.noDistributor')}
            accessRole="DISTRIBUTOR"
            {...form.getInputProps('distributorId')}
            value={form.values.distributorId}
            onChange={(userId) => form.setFieldValue('distributorId', userId)}
          />
        ) : (
          <ReadOnlyAccount label={t('tans.distributor')} userId={form.values.distributorId} />
        )}
        <LocalizedDateInput
          label={t('tans.freeUpdatesUntil')}
          clearable
          {...form.getInputProps('freeUpdatesUntil')}
        />
        <LocalizedDateInput
          label={t('tans.validUntil')}
          description={t('tans.validUntilHelp')}
          clearable
          {...form.getInputProps('validUntil')}
        />
        <TagsInput
          label={t('tans.tags')}
          description={t('tans.tagsHelp')}
          splitChars={[',', ';', ' ']}
          data={knownTags.data?.items}
          limit={20}
          maxTags={TAN_MAX_TAGS}
          clearable
          acceptValueOnBlur
          {...form.getInputProps('tags')}
          onChange={(tags) => form.setFieldValue('tags', [...new Set(tags.flatMap(parseTanTags))] )}
        />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Textarea label={t('entitlements.tanGrants')} description={t('entitlements.grantsHelp')} autosize minRows={2} maxRows={6} styles={MONOSPACE_INPUT} data-testid="tan-entitlements" {...form.getInputProps('entitlements')} />
        <Textarea label={t('entitlements.tanMetadata')} description={t('entitlements.metadataHelp')} autosize minRows={2} maxRows={6} styles={MONOSPACE_INPUT} data-testid="tan-metadata" {...form.getInputProps('metadata')} />
      </SimpleGrid>
      <Textarea label={t('tans.notes')} autosize minRows={2} maxRows={6} {...form.getInputProps('notes')} />
    </>
  );
}

/**
 * The distributor of a distributor's own TAN: its name and whole e-mail address, wrapped onto a
 * second line where the column is narrow (a select's one line cut the address off), styled as a
 * field the person may not change.
 */
function ReadOnlyAccount({ label, userId }: { label: string; userId: number | null }) {
  const { t } = useTranslation();
  const account = useQuery({
    queryKey: ['users', 'one', userId],
    queryFn: ({ signal }) => api<User>(`/users/${userId}`, { signal }),
    enabled: userId !== null,
    staleTime: 60_000,
  });
  return (
    <Textarea
      label={label}
      value={account.data ? userOptionLabel(account.data) : ''}
      disabled
      autosize
      minRows={1}
      title={t('tans.forbiddenField')}
      classNames={{ input: forbidden.forbidden }}
      rightSection={<IconLock size={16} aria-label={t('tans.forbiddenField')} />}
      data-testid="tan-distributor"
      styles={{ input: { overflowWrap: 'anywhere' } }}
    />
  );
}
