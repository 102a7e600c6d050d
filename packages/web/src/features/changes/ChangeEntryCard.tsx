import { Anchor, Badge, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { changedFields, type ChangeLogEntry, type ChangeOperation, type ChangeReferences } from '@lm/contract/change-log';
import { currentLocale } from '../../lib/i18n.ts';
import { formatDateTime } from '../../lib/format.ts';
import { displayValue, fieldLabel } from './change-values.ts';
import classes from './ChangeLog.module.css';

const OPERATION_COLORS: Record<ChangeOperation, string> = { insert: 'green', update: 'blue', delete: 'red' };

interface Props {
  entry: ChangeLogEntry;
  /** What the records the values point to are called now. */
  references: ChangeReferences;
  onlyChanged: boolean;
  onSelectRecord: (recordId: number) => void;
}

/** One change: who did what when, and the old and new values side by side, changed fields highlighted. */
export function ChangeEntryCard({ entry, references, onlyChanged, onSelectRecord }: Props) {
  const { t } = useTranslation();
  const oldValues = entry.oldValues;
  const newValues = entry.newValues;
  const changed = changedFields(oldValues, newValues);
  const fields = [...new Set([...Object.keys(oldValues ?? {}), ...Object.keys(newValues ?? {})])].filter((field) => !onlyChanged || changed.has(field));
  const timestamp = new Date(entry.timestamp);

  return (
    <Paper withBorder p="sm" data-testid="change-entry" data-operation={entry.operation}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs" wrap="wrap">
            <Badge color={OPERATION_COLORS[entry.operation]} variant="light">
              {t(`changes.operations.${entry.operation}`)}
            </Badge>
            <Anchor component="button" type="button" size="sm" onClick={() => onSelectRecord(entry.recordId)} title={t('changes.showRecord')}>
              {t('changes.record', { id: entry.recordId })}
            </Anchor>
          </Group>
          <Group gap="xs" wrap="wrap">
            <Text size="sm" fw={500} data-testid="change-actor">
              {entry.userId === null ? t('changes.system') : (entry.userName ?? t('changes.deletedUser', { id: entry.userId }))}
              {entry.tokenName !== null && ` · ${t('apiTokens.viaToken', { name: entry.tokenName })}`}
            </Text>
            <Text size="sm" c="dimmed" component="time" dateTime={timestamp.toISOString()}>
              {formatDateTime(timestamp)}
            </Text>
          </Group>
        </Group>
        {fields.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('changes.noFieldChanged')}
          </Text>
        ) : (
          // Scrolled sideways on a phone: reachable by keyboard too (axe: scrollable-region-focusable).
          <Table.ScrollContainer minWidth={oldValues && newValues ? 440 : 280} scrollAreaProps={{ viewportProps: { tabIndex: 0 } }}>
            <Table withTableBorder withColumnBorders fz="sm" verticalSpacing={4} className={classes.values}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th className={classes.field}>{t('changes.field')}</Table.Th>
                  {oldValues && <Table.Th>{t('changes.oldValue')}</Table.Th>}
                  {newValues && <Table.Th>{t('changes.newValue')}</Table.Th>}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {fields.map((field) => {
                  const isChanged = entry.operation === 'update' && changed.has(field);
                  return (
                    <Table.Tr key={field} className={isChanged ? classes.changed : undefined} data-changed={isChanged || undefined}>
                      <Table.Td className={classes.field} fw={isChanged ? 600 : undefined}>
                        {fieldLabel(field, t)}
                      </Table.Td>
                      {oldValues && <Table.Td className={classes.value}>{displayValue(field, oldValues[field], t, currentLocale(), references)}</Table.Td>}
                      {newValues && <Table.Td className={classes.value}>{displayValue(field, newValues[field], t, currentLocale(), references)}</Table.Td>}
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
    </Paper>
  );
}
