import { useMemo, useState, type ReactNode } from 'react';
import { Alert, Group, Paper, Pill, Stack, Switch, Table, Text } from '@mantine/core';
import { IconCheck, IconMinus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { DOWNLOAD_LINK_TYPES, type Product } from '@lm/contract/product';
import { PageTitle } from '../../components/PageTitle.tsx';
import { ProductSelect } from '../../components/ProductSelect.tsx';
import { formatDate } from '../../lib/format.ts';
import { policyLabel, useAllLicensePolicies } from '../../lib/license-policies.ts';
import { useProductList } from './api/list-products.ts';
import classes from './products.module.css';

interface CompareRow {
  key: string;
  label: string;
  /** Comparable value per product: rows whose values differ are highlighted. */
  values: string[];
  render?(value: string): ReactNode;
}

const yesNo = (value: string) => (value === 'yes' ? <IconCheck size={18} color="var(--mantine-color-green-7)" /> : <IconMinus size={18} color="var(--mantine-color-gray-5)" />);

/** Two or more products side by side (`?ids=1,2`), rows with differences highlighted. */
export default function ProductComparePage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const idsParam = params.get('ids') ?? '';
  const ids = useMemo(() => idsParam.split(',').filter((id) => /^\d+$/.test(id)), [idsParam]);
  const [resolve, setResolve] = useState(false);
  const [onlyDifferences, setOnlyDifferences] = useState(false);
  const policies = useAllLicensePolicies();
  const choose = (next: string[]) => setParams(next.length ? { ids: next.join(',') } : {}, { replace: true });
  const compared = useProductList({ ids: ids.join(','), resolveFeatures: resolve || undefined, limit: 100 }, ids.length >= 1);
  const products = useMemo(
    () => ids.map((id) => compared.data?.items.find((product) => product.id === Number(id))).filter((product): product is Product => Boolean(product)),
    [ids, compared.data],
  );

  const rows = useMemo((): CompareRow[] => {
    const policyName = (id: number | null) => {
      const policy = policies.data?.find((candidate) => candidate.id === id);
      return policy ? policyLabel(policy, t) : '';
    };
    const none = t('common.none');
    const field = (key: string, label: string, value: (product: Product) => string, render?: CompareRow['render']): CompareRow => ({ key, label, values: products.map(value), render });
    const features = [...new Set(products.flatMap((product) => product.features))].sort();
    return [
      field('name', t('catalogue.product.name'), (product) => product.name),
      field('version', t('catalogue.product.version'), (product) => product.version),
      field('active', t('catalogue.product.active'), (product) => (product.active ? 'yes' : 'no'), yesNo),
      field('trialDays', t('catalogue.product.trialDays'), (product) => String(product.trialDays ?? none)),
      field('repeat', t('catalogue.product.repeatTrialAfterMonths'), (product) => String(product.repeatTrialAfterMonths ?? none)),
      field('ignoreTrialsBefore', t('catalogue.product.ignoreTrialsBefore'), (product) => formatDate(product.ignoreTrialsBefore)),
      field('releaseDate', t('catalogue.product.releaseDate'), (product) => formatDate(product.releaseDate)),
      field('policy', t('catalogue.product.defaultLicensePolicy'), (product) => policyName(product.defaultLicensePolicyId)),
      ...DOWNLOAD_LINK_TYPES.map((type) =>
        field(`link-${type}`, t(`catalogue.product.linkTypes.${type}`), (product) =>
          product.downloadLinks
            .filter((link) => link.type === type)
            .map((link) => link.url)
            .join('\n'),
        ),
      ),
      ...features.map((name) => field(`feature-${name}`, name, (product) => (product.features.includes(name) ? 'yes' : 'no'), yesNo)),
    ];
  }, [products, policies.data, t]);

  const differs = (row: CompareRow) => row.values.some((value) => value !== row.values[0]);
  const shown = onlyDifferences ? rows.filter(differs) : rows;
  const firstFeatureRow = rows.findIndex((row) => row.key.startsWith('feature-'));

  return (
    <>
      <PageTitle title={t('pages.productCompare')} />
      <Paper withBorder p="md" mb="md">
        <Group align="flex-end" gap="lg">
          <Stack gap={6} style={{ flex: 1 }} miw="min(20rem, 100%)">
            <ProductSelect
              // A fresh, empty select after each choice.
              key={idsParam}
              label={t('catalogue.compare.add')}
              placeholder={t('catalogue.compare.choose')}
              value={null}
              exclude={ids.map(Number)}
              onChange={(id) => id !== null && choose([...ids, String(id)])}
            />
            <Group gap={6} role="group" aria-label={t('catalogue.compare.products')} data-testid="compare-chosen">
              {ids.map((id) => (
                <Pill key={id} withRemoveButton onRemove={() => choose(ids.filter((other) => other !== id))} removeButtonProps={{ 'aria-label': t('common.delete') }}>
                  {compared.data?.items.find((product) => product.id === Number(id))?.formattedName ?? `#${id}`}
                </Pill>
              ))}
            </Group>
          </Stack>
          <Switch label={t('catalogue.matrix.resolveFeatures')} checked={resolve} onChange={(event) => setResolve(event.currentTarget.checked)} />
          <Switch label={t('catalogue.compare.onlyDifferences')} checked={onlyDifferences} onChange={(event) => setOnlyDifferences(event.currentTarget.checked)} />
        </Group>
      </Paper>
      {ids.length < 2 ? (
        <Alert color="blue">{t('catalogue.compare.chooseTwo')}</Alert>
      ) : (
        <Paper withBorder p="md">
          <Table.ScrollContainer minWidth={220 + products.length * 200}>
            <Table withColumnBorders data-testid="product-compare">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th className={classes.stickyColumn} />
                  {products.map((product) => (
                    <Table.Th key={product.id}>{product.formattedName}</Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {shown.map((row) => (
                  <Table.Tr key={row.key} className={differs(row) ? classes.differs : undefined} data-differs={differs(row) || undefined} data-testid={`compare-row-${row.key}`}>
                    <Table.Th className={classes.stickyColumn} scope="row">
                      {row.key === rows[firstFeatureRow]?.key && (
                        <Text size="xs" c="dimmed" tt="uppercase">
                          {t('catalogue.product.features')}
                        </Text>
                      )}
                      {row.label}
                    </Table.Th>
                    {row.values.map((value, index) => (
                      <Table.Td key={products[index].id} style={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}>
                        {row.render ? row.render(value) : value}
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Text size="sm" c="dimmed" mt="sm">
            {t('catalogue.compare.legend')}
          </Text>
        </Paper>
      )}
    </>
  );
}
