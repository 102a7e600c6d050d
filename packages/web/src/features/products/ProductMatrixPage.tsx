import { useMemo, useState } from 'react';
import { Alert, Group, MultiSelect, Paper, Switch, Table, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LIST_MAX_LIMIT } from '@lm/contract';
import { featureLabel, type Feature } from '@lm/contract/feature';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useFeatureCache } from '../../lib/feature-cache.ts';
import { currentLocale } from '../../lib/i18n.ts';
import { useProductList } from './api/list-products.ts';
import classes from './products.module.css';

/**
 * Products × features (spec section 2): filters for active products and for features (products
 * having all of them), feature columns by name or localized name, and the resolve-features option.
 */
export default function ProductMatrixPage() {
  const { t } = useTranslation();
  const locale = currentLocale();
  const [activeOnly, setActiveOnly] = useState(true);
  const [selected, setSelected] = useState<string[]>([]);
  const [localized, setLocalized] = useState(false);
  const [resolve, setResolve] = useState(false);
  const features = useFeatureCache();
  const products = useProductList({
    limit: LIST_MAX_LIMIT,
    sort: 'name,version',
    active: activeOnly ? true : undefined,
    resolveFeatures: resolve || undefined,
    featureNames: selected.length ? selected : undefined,
  });

  const byName = useMemo(() => new Map<string, Feature>((features.data ?? []).map((feature) => [feature.name, feature])), [features.data]);
  const columns = useMemo(() => {
    const present = new Set((products.data?.items ?? []).flatMap((product) => product.features));
    return [...new Set([...selected, ...present])].sort();
  }, [products.data, selected]);
  const title = (name: string) => {
    const feature = byName.get(name);
    return localized && feature ? featureLabel(feature, locale) : name;
  };

  return (
    <>
      <PageTitle title={t('pages.productMatrix')} />
      <Paper withBorder p="md" mb="md">
        <Group align="flex-end" gap="lg">
          <MultiSelect
            label={t('catalogue.matrix.features')}
            placeholder={t('catalogue.matrix.featuresPlaceholder')}
            searchable
            clearable
            miw="min(17.5rem, 100%)"
            style={{ flex: 1 }}
            data={(features.data ?? []).map((feature) => ({ value: feature.name, label: localized ? `${featureLabel(feature, locale)} (${feature.name})` : feature.name }))}
            value={selected}
            onChange={setSelected}
          />
          <Switch label={t('catalogue.matrix.activeOnly')} checked={activeOnly} onChange={(event) => setActiveOnly(event.currentTarget.checked)} />
          <Switch label={t('catalogue.matrix.localizedNames')} checked={localized} onChange={(event) => setLocalized(event.currentTarget.checked)} />
          <Switch label={t('catalogue.matrix.resolveFeatures')} checked={resolve} onChange={(event) => setResolve(event.currentTarget.checked)} />
        </Group>
      </Paper>
      <Paper withBorder p="md">
        {products.data && products.data.items.length === 0 ? (
          <Alert color="gray">{t('catalogue.matrix.empty')}</Alert>
        ) : (
          // Scrolled both ways on a phone: reachable by keyboard too (axe: scrollable-region-focusable).
          <Table.ScrollContainer minWidth={300 + columns.length * 48} maxHeight="70vh" scrollAreaProps={{ viewportProps: { tabIndex: 0 } }}>
            <Table striped highlightOnHover withColumnBorders stickyHeader w="auto" data-testid="product-matrix">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th className={classes.stickyColumn}>{t('catalogue.matrix.product')}</Table.Th>
                  {columns.map((name) => (
                    <Table.Th key={name} className={classes.featureHeader}>
                      <Tooltip label={name} disabled={!localized}>
                        <span>{title(name)}</span>
                      </Tooltip>
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {products.data?.items.map((product) => {
                  const has = new Set(product.features);
                  return (
                    <Table.Tr key={product.id} data-testid={`matrix-row-${product.id}`}>
                      <Table.Th className={classes.stickyColumn} scope="row">
                        <Text size="sm" fw={500} c={product.active ? undefined : 'dimmed'}>
                          {product.formattedName}
                        </Text>
                      </Table.Th>
                      {columns.map((name) => (
                        <Table.Td key={name} ta="center" data-feature={name} data-has={has.has(name) || undefined}>
                          {has.has(name) ? (
                            <>
                              <IconCheck size={18} color="var(--mantine-color-green-7)" aria-hidden />
                              <VisuallyHidden>{t('common.yes')}</VisuallyHidden>
                            </>
                          ) : (
                            <VisuallyHidden>{t('common.no')}</VisuallyHidden>
                          )}
                        </Table.Td>
                      ))}
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {products.data && (
          <Text size="sm" c="dimmed" mt="sm">
            {t('catalogue.list.total', { count: products.data.totalCount })}
          </Text>
        )}
      </Paper>
    </>
  );
}
