import { ActionIcon, Button, Checkbox, Group, NumberInput, PasswordInput, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { SHOP_MAX_GRACE_DAYS, SHOP_MAX_SEATS, SHOP_PROVIDERS, type ShopConnection, type ShopProvider } from '@lm/contract/shop';
import { FormActions } from '../../components/FormActions.tsx';
import { ProductSelect } from '../../components/ProductSelect.tsx';
import { showError, showSuccess } from '../../lib/notify.ts';
import { showFieldErrors } from '../../lib/server-errors.ts';
import { PolicySelect } from '../../components/PolicySelect.tsx';
import { useVersionedEdit } from '../../lib/use-versioned-edit.tsx';
import { useSaveShopConnection, useShopConnectionsChanged } from './api/shop.ts';

interface MappingValues {
  externalId: string;
  productId: number | null;
  licensePolicyId: number | null;
  seats: number;
  /** The shop's id is "no license" (support hours, a manual): its lines make no TAN. */
  noLicense: boolean;
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

/** A mapping as the API takes it; one marked "no license" (or read back so: no product) names no product, policy or seats. */
const mappingBody = (mapping: Omit<MappingValues, 'noLicense'> & { noLicense?: boolean }) =>
  mapping.noLicense || mapping.productId === null
    ? { externalId: mapping.externalId.trim(), productId: null, licensePolicyId: null, seats: 1 }
    : { externalId: mapping.externalId.trim(), productId: mapping.productId, licensePolicyId: mapping.licensePolicyId, seats: mapping.seats };
const connectionBodyOf = (connection: ShopConnection) => ({ name: connection.name, graceDays: connection.graceDays, mappings: connection.mappings.map(mappingBody) });
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
      mappings: connection?.mappings.map((mapping) => ({ ...mapping, noLicense: mapping.productId === null })) ?? [],
    },
    validate: {
      name: (value) => (value.trim() ? null : t('shop.required')),
      secret: (value) => (connection || value.trim().length >= 8 ? (value && value.trim().length < 8 ? t('shop.secretTooShort') : null) : t('shop.secretTooShort')),
      mappings: { externalId: (value) => (value.trim() ? null : t('shop.required')), productId: (value, values, path) => (value || values.mappings[Number(path.split('.')[1])]?.noLicense ? null : t('shop.required')) },
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
      field === 'mappings' ? (value as MappingValues[]).map((mapping) => `${mapping.externalId} → #${mapping.productId} ×${mapping.seats}`).join(', ') || '—' : field === 'secret' ? '••••' : String(value ?? '—'),
    onReload: (current) => {
      const values = { ...form.getValues(), name: current.name, graceDays: current.graceDays, mappings: current.mappings.map((mapping) => ({ ...mapping, noLicense: mapping.productId === null })), secret: '' };
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
      if (!showFieldErrors(form, error)) showError(error, connection ? 'shop.saveFailed' : 'shop.addFailed');
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
            <Group key={index} align="flex-start" wrap="wrap" data-testid="shop-mapping">
              <TextInput label={t('shop.externalId')} required style={{ flex: '1 1 12rem' }} {...form.getInputProps(`mappings.${index}.externalId`)} />
              {!mapping.noLicense && (
                <>
                  <ProductSelect
                    label={t('shop.product')}
                    required
                    active
                    style={{ flex: '1 1 14rem' }}
                    error={form.errors[`mappings.${index}.productId`]}
                    value={mapping.productId}
                    onChange={(productId) => form.setFieldValue(`mappings.${index}.productId`, productId)}
                  />
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
              <Checkbox mt={32} label={t('shop.noLicense')} {...form.getInputProps(`mappings.${index}.noLicense`, { type: 'checkbox' })} data-testid="mapping-no-license" />
              <ActionIcon variant="subtle" color="red" mt={28} aria-label={t('shop.removeMapping')} onClick={() => form.removeListItem('mappings', index)}>
                <IconTrash size={18} />
              </ActionIcon>
            </Group>
          ))}
          <Group>
            <Button variant="light" size="compact-sm" leftSection={<IconPlus size={14} />} onClick={() => form.insertListItem('mappings', { externalId: '', productId: null, licensePolicyId: null, seats: 1, noLicense: false })}>
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
