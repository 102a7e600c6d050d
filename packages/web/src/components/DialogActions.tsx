import type { ReactNode } from 'react';
import { Group } from '@mantine/core';
import classes from './DialogActions.module.css';

/** The buttons at the end of a form; in a dialog, in view however long the form (DialogActions.module.css). */
export function DialogActions({ children }: { children: ReactNode }) {
  return (
    <Group justify="flex-end" className={classes.actions}>
      {children}
    </Group>
  );
}
