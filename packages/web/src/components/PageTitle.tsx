import { useEffect, type ReactNode } from 'react';
import { Group, Title } from '@mantine/core';

/** The page's one level-one heading; also the document title, so browser tabs and history read well. */
export function PageTitle({ title, actions }: { title: string; actions?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · License Manager`;
  }, [title]);
  return (
    <Group justify="space-between" align="center" mb="md" wrap="wrap">
      <Title order={1} size="h2">
        {title}
      </Title>
      {actions}
    </Group>
  );
}
