import { Anchor, List, Popover, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { featureLabel } from '@lm/contract/feature';
import type { Product } from '@lm/contract/product';
import { useFeatureCache } from '../../lib/feature-cache.ts';
import { currentLocale } from '../../lib/i18n.ts';
import { entitlementLabel } from '../../lib/grants-text.ts';

/**
 * A product's features behind its count: a button that opens the list (with each feature's
 * default value and description), by mouse, keyboard or touch alike; a hover tooltip reached none but the mouse.
 */
export function ProductFeatures({ product }: { product: Product }) {
  const { t } = useTranslation();
  const { data: features } = useFeatureCache();
  const count = t('catalogue.product.featureCount', { count: product.features.length });
  if (product.features.length === 0) return <Text size="sm">{count}</Text>;
  const known = new Map((features ?? []).map((feature) => [feature.name, feature]));
  return (
    // The list takes the focus (and gives it back): there Escape closes it, as it does a dialog.
    <Popover width={320} position="bottom-start" withArrow shadow="md" trapFocus returnFocus>
      <Popover.Target>
        {/* At least 24 px high, as a touch target must be (WCAG 2.5.8), also in a dense row. */}
        <Anchor component="button" type="button" size="sm" mih={24} aria-label={`${count}: ${product.formattedName}`} data-testid="product-features">
          {count}
        </Anchor>
      </Popover.Target>
      <Popover.Dropdown tabIndex={-1} data-autofocus>
        <List size="sm" spacing={2}>
          {product.features.map((name) => {
            const feature = known.get(name);
            const label = feature ? featureLabel(feature, currentLocale()) : name;
            // With its default value, if it has one: "MAX_PROJECTS = 50 — Projects".
            const shown = entitlementLabel(name, product.featureValues[name] ?? true);
            return <List.Item key={name}>{label === name ? shown : `${shown} — ${label}`}</List.Item>;
          })}
        </List>
      </Popover.Dropdown>
    </Popover>
  );
}
