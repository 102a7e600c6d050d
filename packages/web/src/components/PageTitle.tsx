import { useEffect, type ReactNode } from 'react';
import { Group, Title } from '@mantine/core';

/** The page heading; also the document title, so browser tabs and history read well. */
export function PageTitle({ title, actions }: { title: string; actions?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · License Manager`;
  }, [title]);
  return (
    <Group justify="space-between" align="center" mb="md" wrap="wrap">
      <Title order={2}>{title}</Title>
      {actions}
    </Group>
  );
}
