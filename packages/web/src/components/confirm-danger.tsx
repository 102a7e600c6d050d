import type { ReactNode } from 'react';
import { Text } from '@mantine/core';
import { openConfirmModal } from './modals.tsx';
import i18n from '../lib/i18n.ts';
import { showError, showSuccess } from '../lib/notify.ts';

interface DangerousAction {
  title: string;
  text: string;
  /** More to ask below the text (e.g. whether the records that depend on it go too). */
  extra?: ReactNode;
  /** The red button's label; "Delete" unless told. */
  confirmLabel?: string;
  confirmTestId?: string;
  run: () => Promise<unknown>;
  /** The green toast after it worked. */
  done: string;
  /** The translation key of the red toast when the server gives no better reason. */
  failedKey: string;
}

/** Asks before an action that cannot be undone (delete, revoke), then runs it and says how it went. */
export function confirmDanger({ title, text, extra, confirmLabel, confirmTestId, run, done, failedKey }: DangerousAction): void {
  openConfirmModal({
    title,
    children: (
      <>
        <Text size="sm">{text}</Text>
        {extra}
      </>
    ),
    labels: { confirm: confirmLabel ?? i18n.t('common.delete'), cancel: i18n.t('common.cancel') },
    confirmProps: { color: 'red', 'data-testid': confirmTestId } as never,
    onConfirm: async () => {
      try {
        await run();
        showSuccess(done);
      } catch (error) {
        showError(error, failedKey);
      }
    },
  });
}
