import { ActionIcon, Button, Group, NumberInput, PasswordInput, Select, SimpleGrid, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { SHOP_MAX_GRACE_DAYS, SHOP_MAX_SEATS, SHOP_PROVIDERS, type ShopConnection, type ShopProvider } from '@lm/contract/shop';
import { FormActions } from '../../components/FormActions.tsx';
import { ProductSelect } from '../../components/ProductSelect.tsx';
import { showError, showSuccess } from '../../lib/notify.ts';
import { formatGrants, parseGrantsText, MONOSPACE_INPUT } from '../../lib/grants-text.ts';
import { showFieldErrors } from '../../lib/server-errors.ts';
import { PolicySelect } from '../../components/PolicySelect.tsx';
import { useVersionedEdit } from '../../lib/use-versioned-edit.tsx';
import { useSaveShopConnection, useShopConnectionsChanged } from './api/shop.ts';
import classes from './ShopConnectionForm.module.css';

/**
 * What a shop's id sells: a license (a TAN per unit), an add-on to the buyer's license of the
 * product (its features added, no TAN), or no license at all (support hours, a manual).
 */
type MappingKind = 'license' | 'addOn' | 'none';
const MAPPING_KINDS: MappingKind[] = ['license', 'addOn', 'none'];

interface MappingValues {
  externalId: string;
  kind: MappingKind;
  productId: number | null;
  licensePolicyId: number | null;
  seats: number;
  /** The features a unit grants, as text lines (lib/grants-text.ts). */
  entitlements: string;
}

interface Values {
  provider: ShopProvider;
  name: string;
  secret: string;
  graceDays: number;
  mappings: MappingValues[];
}

const PROVIDER_NAMES: Record<ShopProvider, string> = { stripe: 'Stripe', paddle: 'Paddle Billing', fastspring: 'FastSpring', shopify: 'Shopify', generic: 'Generic' };
export const providerName = (provider: ShopProvider) => PROVIDER_NAMES[provider];

type StoredMapping = ShopConnection['mappings'][number];

const mappingValues = (mapping: StoredMapping): MappingValues => ({
  externalId: mapping.externalId,
  kind: mapping.productId === null ? 'none' : mapping.addOn ? 'addOn' : 'license',
  productId: mapping.productId,
  licensePolicyId: mapping.licensePolicyId,
  seats: mapping.seats,
  entitlements: formatGrants(mapping.entitlements),
});

/** A mapping as the API takes it: "no license" names no product, policy, seats or features; an add-on no policy or seats. */
const mappingBody = (mapping: MappingValues) => {
  const externalId = mapping.externalId.trim();
  if (mapping.kind === 'none') return { externalId, productId: null, licensePolicyId: null, seats: 1, addOn: false, entitlements: [] };
  const entitlements = parseGrantsText(mapping.entitlements);
  if (mapping.kind === 'addOn') return { externalId, productId: mapping.productId, licensePolicyId: null, seats: 1, addOn: true, entitlements };
  return { externalId, productId: mapping.productId, licensePolicyId: mapping.licensePolicyId, seats: mapping.seats, addOn: false, entitlements };
};
const connectionBodyOf = (connection: ShopConnection) => ({ name: connection.name, graceDays: connection.graceDays, mappings: connection.mappings.map((mapping) => mappingBody(mappingValues(mapping))) });
const NEW_MAPPING: MappingValues = { externalId: '', kind: 'license', productId: null, licensePolicyId: null, seats: 1, entitlements: '' };
/** A mapping in the edit-conflict dialog: `price_1 → #3 ×5`, `price_2 → #3 + SIMULATION`, `price_3 → —`. */
const mappingSummary = (mapping: ReturnType<typeof mappingBody>) => {
  if (mapping.productId === null) return `${mapping.externalId} → —`;
  const features = mapping.entitlements.map((grant) => grant.feature).join(', ');
  return mapping.addOn ? `${mapping.externalId} → #${mapping.productId} + ${features}` : `${mapping.externalId} → #${mapping.productId} ×${mapping.seats}${features ? ` (${features})` : ''}`;
};
const CONNECTION_LABELS = { name: 'shop.name', graceDays: 'shop.graceDays', mappings: 'shop.mappings', secret: 'shop.secret' };

/**
 * Create or edit a shop connection: provider, name, the write-only secret, grace days and the mapping
 * of the shop's ids to products. An edit sends only what the person changed, with If-Match.
 */
export function ShopConnectionForm({ connection, onSaved, onCancel }: { connection: ShopConnection | null; onSaved(saved: ShopConnection): void; onCancel(): void }) {
  const { t } = useTranslation();
  const save = useSaveShopConnection(connection?.id ?? null);
  const form = useForm<Values>({
    initialValues: {
      provider: connection?.provider ?? 'stripe',
      name: connection?.name ?? '',
      secret: '',
      graceDays: connection?.graceDays ?? 3,
      mappings: connection?.mappings.map(mappingValues) ?? [],
    },
    validate: {
      name: (value) => (value.trim() ? null : t('shop.required')),
      secret: (value) => (connection || value.trim().length >= 8 ? (value && value.trim().length < 8 ? t('shop.secretTooShort') : null) : t('shop.secretTooShort')),
      mappings: {
        externalId: (value) => (value.trim() ? null : t('shop.required')),
        productId: (value, values, path) => (value || values.mappings[Number(path.split('.')[1])]?.kind === 'none' ? null : t('shop.required')),
        entitlements: (value, values, path) => (value.trim() || values.mappings[Number(path.split('.')[1])]?.kind !== 'addOn' ? null : t('shop.addOnNeedsFeatures')),
      },
    },
  });

  const connectionsChanged = useShopConnectionsChanged();
  const done = (saved: ShopConnection) => {
    showSuccess(t(connection ? 'shop.saved' : 'shop.added'));
    onSaved(saved);
  };
  const edit = useVersionedEdit<ShopConnection>({
    path: connection ? `/shop-connections/${connection.id}` : null,
    initial: connection,
    bodyOf: connectionBodyOf,
    labels: CONNECTION_LABELS,
    formatValue: (field, value) =>
      field === 'mappings' ? (value as ReturnType<typeof mappingBody>[]).map(mappingSummary).join(', ') || '—' : field === 'secret' ? '••••' : String(value ?? '—'),
    onReload: (current) => {
      const values = { ...form.getValues(), name: current.name, graceDays: current.graceDays, mappings: current.mappings.map(mappingValues), secret: '' };
      form.setValues(values);
      form.resetDirty(values);
    },
    onSaved: async (saved) => {
      await connectionsChanged();
      done(saved);
    },
  });

  const submit = form.onSubmit(async (values) => {
    const body = { name: values.name, graceDays: values.graceDays, mappings: values.mappings.map(mappingBody), ...(values.secret ? { secret: values.secret } : {}), ...(connection ? {} : { provider: values.provider }) };
    try {
      if (connection) await edit.save(body);
      else done(await save.mutateAsync(body as never));
    } catch (error) {
      // A refused feature (`mappings.0.entitlements.1.value`) marks that mapping's features field.
      const grantFields = values.mappings.map((_, index) => `mappings.${index}.entitlements`);
      if (!showFieldErrors(form, error, grantFields)) showError(error, connection ? 'shop.saveFailed' : 'shop.addFailed');
    }
  });

  return (
    <form onSubmit={submit} noValidate data-testid="shop-connection-form">
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label={t('shop.provider')}
            data={SHOP_PROVIDERS.map((provider) => ({ value: provider, label: providerName(provider) }))}
            disabled={Boolean(connection)}
            allowDeselect={false}
            {...form.getInputProps('provider')}
          />
          <TextInput label={t('shop.name')} required maxLength={100} {...form.getInputProps('name')} />
          <PasswordInput label={t('shop.secret')} description={connection ? t('shop.secretKeep') : t('shop.secretHint')} required={!connection} autoComplete="off" {...form.getInputProps('secret')} />
          <NumberInput label={t('shop.graceDays')} description={t('shop.graceDaysHint')} min={0} max={SHOP_MAX_GRACE_DAYS} allowDecimal={false} allowNegative={false} {...form.getInputProps('graceDays')} />
        </SimpleGrid>
        <Stack gap="xs">
          <Text fw={500} size="sm">
            {t('shop.mappings')}
          </Text>
          <Text size="xs" c="dimmed">
            {t('shop.mappingsHint')}
          </Text>
          {form.values.mappings.map((mapping, index) => (
            <Stack key={index} gap="xs" data-testid="shop-mapping" className={classes.mapping}>
              <Group align="flex-start" wrap="wrap">
                <TextInput label={t('shop.externalId')} required style={{ flex: '1 1 12rem' }} {...form.getInputProps(`mappings.${index}.externalId`)} />
                <Select
                  label={t('shop.mappingKind')}
                  data={MAPPING_KINDS.map((kind) => ({ value: kind, label: t(`shop.mappingKinds.${kind}`) }))}
                  allowDeselect={false}
                  style={{ flex: '1 1 12rem' }}
                  data-testid="mapping-kind"
                  {...form.getInputProps(`mappings.${index}.kind`)}
                />
                <ActionIcon variant="subtle" color="red" mt={28} aria-label={t('shop.removeMapping')} onClick={() => form.removeListItem('mappings', index)}>
                  <IconTrash size={18} />
                </ActionIcon>
              </Group>
              {mapping.kind !== 'none' && (
                <Group align="flex-start" wrap="wrap">
                  <ProductSelect
                    label={t('shop.product')}
                    required
                    active
                    style={{ flex: '1 1 14rem' }}
                    error={form.errors[`mappings.${index}.productId`]}
                    value={mapping.productId}
                    onChange={(productId) => form.setFieldValue(`mappings.${index}.productId`, productId)}
                  />
                  {mapping.kind === 'license' && (
                    <>
                      <PolicySelect
                        label={t('tans.policy')}
                        placeholder={t('tans.policyFromProduct')}
                        style={{ flex: '1 1 12rem' }}
                        value={mapping.licensePolicyId === null ? null : String(mapping.licensePolicyId)}
                        onChange={(policyId) => form.setFieldValue(`mappings.${index}.licensePolicyId`, policyId ? Number(policyId) : null)}
                        data-testid="mapping-policy"
                      />
                      <NumberInput label={t('shop.seats')} min={1} max={SHOP_MAX_SEATS} allowDecimal={false} allowNegative={false} w={100} {...form.getInputProps(`mappings.${index}.seats`)} />
                    </>
                  )}
                </Group>
              )}
              {mapping.kind !== 'none' && (
                <Textarea
                  label={t(mapping.kind === 'addOn' ? 'shop.addOnFeatures' : 'shop.licenseFeatures')}
                  description={t('entitlements.grantsHelp')}
                  required={mapping.kind === 'addOn'}
                  autosize
                  minRows={1}
                  maxRows={6}
                  styles={MONOSPACE_INPUT}
                  data-testid="mapping-entitlements"
                  {...form.getInputProps(`mappings.${index}.entitlements`)}
                />
              )}
            </Stack>
          ))}
          <Group>
            <Button variant="light" size="compact-sm" leftSection={<IconPlus size={14} />} onClick={() => form.insertListItem('mappings', { ...NEW_MAPPING })}>
              {t('shop.addMapping')}
            </Button>
          </Group>
        </Stack>
        <FormActions editing={Boolean(connection)} saving={save.isPending || edit.saving} onCancel={onCancel} />
      </Stack>
      {edit.conflictDialog}
    </form>
  );
}
