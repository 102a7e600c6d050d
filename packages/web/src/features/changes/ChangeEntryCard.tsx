import { useState } from 'react';
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

/** Not worth a place in a created or deleted record's one-line summary. */
const NOT_IN_SUMMARY = new Set(['id', 'createdAt', 'updatedAt']);

/**
 * One change: who did what when, and what changed, compact (issue 38: 25 entries of every field made a
 * page 9,450 px tall): a change shows its changed fields, a created or deleted record a line of its
 * values; every field, old and new side by side, opens on request.
 */
export function ChangeEntryCard({ entry, references, onlyChanged, onSelectRecord }: Props) {
  const { t } = useTranslation();
  const oldValues = entry.oldValues;
  const newValues = entry.newValues;
  const changed = changedFields(oldValues, newValues);
  const fields = [...new Set([...Object.keys(oldValues ?? {}), ...Object.keys(newValues ?? {})])].filter((field) => !onlyChanged || changed.has(field));
  const timestamp = new Date(entry.timestamp);
  const [open, setOpen] = useState(false);
  const shown = open ? fields : entry.operation === 'update' ? fields.filter((field) => changed.has(field)) : [];
  const values = newValues ?? oldValues ?? {};
  const summary = Object.keys(values)
    .filter((field) => !NOT_IN_SUMMARY.has(field) && values[field] !== null && values[field] !== '')
    .map((field) => `${fieldLabel(field, t)}: ${displayValue(field, values[field], t, currentLocale(), references)}`)
    .join(' · ');

  return (
    <Paper withBorder px="sm" py={6} data-testid="change-entry" data-operation={entry.operation}>
      <Stack gap={6}>
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
            {fields.length > shown.length || open ? (
              <Anchor component="button" type="button" size="sm" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="change-details">
                {open ? t('changes.fewerFields') : t('changes.allFields', { count: fields.length })}
              </Anchor>
            ) : null}
          </Group>
        </Group>
        {!open && entry.operation !== 'update' ? (
          summary && (
            <Text size="sm" className={classes.summary} data-testid="change-summary">
              {summary}
            </Text>
          )
        ) : shown.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('changes.noFieldChanged')}
          </Text>
        ) : (
          // Values break anywhere, so that the table fits a phone without a sideways scroll.
          <Table withTableBorder withColumnBorders fz="sm" verticalSpacing={4} className={classes.values}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th className={classes.field}>{t('changes.field')}</Table.Th>
                  {oldValues && <Table.Th>{t('changes.oldValue')}</Table.Th>}
                  {newValues && <Table.Th>{t('changes.newValue')}</Table.Th>}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {shown.map((field) => {
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
        )}
      </Stack>
    </Paper>
  );
}
