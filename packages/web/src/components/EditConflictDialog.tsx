import { Button, Group, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Dialog } from './Dialog.tsx';

/** One field of a conflict: what the person wants it to be, and what it is now. */
export interface ConflictRow {
  field: string;
  label: string;
  mine: string;
  current: string;
  /** Someone else changed it while the dialog was open. */
  changedMeanwhile: boolean;
  /** The person changed it (else applying their changes again leaves it as it is now). */
  changedByMe: boolean;
}

interface Props {
  rows: ConflictRow[];
  busy: boolean;
  onReload: () => void;
  onApplyAgain: () => void;
  /** Closed without a choice: the form stays as the person left it (saving again asks again). */
  onDismiss: () => void;
}

/**
 * Shown when a save found the record changed since the dialog opened it (412 ERR_EDIT_CONFLICT):
 * which fields someone else changed and which the person changed, with both values, so that
 * nothing is lost silently. "Reload" shows the record as it is now (the person's changes are
 * dropped); "Apply my changes again" sends only the person's changes to the current record.
 */
export function EditConflictDialog({ rows, busy, onReload, onApplyAgain, onDismiss }: Props) {
  const { t } = useTranslation();
  return (
    <Dialog onClose={onDismiss} title={t('editConflict.title')} size="lg" zIndex={400} data-testid="edit-conflict-dialog">
      <Stack>
        <Text size="sm">{t('editConflict.text')}</Text>
        <Table striped withTableBorder data-testid="edit-conflict-rows">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('editConflict.field')}</Table.Th>
              <Table.Th>{t('editConflict.mine')}</Table.Th>
              <Table.Th>{t('editConflict.current')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={row.field} data-field={row.field}>
                <Table.Td>
                  {row.label}
                  {row.changedMeanwhile && (
                    <Text size="xs" c="orange">
                      {t('editConflict.changedMeanwhile')}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {row.mine}
                  {!row.changedByMe && (
                    <Text size="xs" c="dimmed">
                      {t('editConflict.notChangedByYou')}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{row.current}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Group justify="flex-end">
          <Button variant="default" onClick={onReload} disabled={busy} data-testid="edit-conflict-reload">
            {t('editConflict.reload')}
          </Button>
          <Button onClick={onApplyAgain} loading={busy} data-testid="edit-conflict-apply">
            {t('editConflict.applyAgain')}
          </Button>
        </Group>
      </Stack>
    </Dialog>
  );
}
