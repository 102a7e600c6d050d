import { Badge, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatDate } from '../../lib/format.ts';
import { useProductVersions } from './api/product-versions.ts';

/** The versions of a product's name, oldest first, the given one marked. */
export function ProductVersions({ productId }: { productId: number }) {
  const { t } = useTranslation();
  const { data } = useProductVersions(productId);
  if (!data || data.length < 2) return null;
  return (
    <Group gap="xs" mb="md" aria-label={t('catalogue.product.versions')}>
      <Text size="sm" fw={500}>
        {t('catalogue.product.versions')}:
      </Text>
      {data.map((version) => (
        <Badge key={version.id} variant={version.id === productId ? 'filled' : 'light'} color={version.active ? 'blue' : 'gray'} tt="none" title={formatDate(version.releaseDate)}>
          {version.version}
        </Badge>
      ))}
    </Group>
  );
}
