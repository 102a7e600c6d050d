import { useEffect, type ReactNode } from 'react';
import { Group, Title } from '@mantine/core';
import { useProductName } from '../lib/settings.ts';

/**
 * The page's one level-one heading; also the document title, so browser tabs and history read well:
 * the page, then the product's name of the theme settings.
 */
export function PageTitle({ title, actions }: { title: string; actions?: ReactNode }) {
  const productName = useProductName();
  useEffect(() => {
    document.title = `${title} · ${productName}`;
  }, [title, productName]);
  return (
    <Group justify="space-between" align="center" mb="md" wrap="wrap">
      <Title order={1} size="h2">
        {title}
      </Title>
      {actions}
    </Group>
  );
}
