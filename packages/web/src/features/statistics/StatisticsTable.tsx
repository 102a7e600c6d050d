import { Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { StatisticsCategory } from '@lm/contract';
import { STATISTICS_METRICS, type StatisticsResult } from '@lm/contract/statistics';
import { formatMetric, monthLabel } from './format.ts';

/** The chart's numbers as a table: one row per month, the totals last. */
export function StatisticsTable({ category, result }: { category: StatisticsCategory; result: StatisticsResult }) {
  const { t } = useTranslation();
  const metrics = STATISTICS_METRICS[category];
  return (
    // Fits a phone without a sideways scroll (issue 38): the headers break, at a space where they can.
    <Table striped highlightOnHover withTableBorder verticalSpacing={4} horizontalSpacing="xs" fz="sm" data-testid={`table-${category}`}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t('statistics.month')}</Table.Th>
          {metrics.map((metric) => (
            <Table.Th key={metric} ta="right" style={{ overflowWrap: 'anywhere' }}>
              {t(`statistics.metrics.${category}.${metric}`)}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {result.months.map(({ month, values }) => (
          <Table.Tr key={month}>
            <Table.Td style={{ whiteSpace: 'nowrap' }}>{monthLabel(month)}</Table.Td>
            {metrics.map((metric) => (
              <Table.Td key={metric} ta="right">
                {formatMetric(metric, values)}
              </Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
      <Table.Tfoot>
        <Table.Tr fw={700}>
          <Table.Td>{t('statistics.total')}</Table.Td>
          {metrics.map((metric) => (
            <Table.Td key={metric} ta="right">
              {formatMetric(metric, result.totals)}
            </Table.Td>
          ))}
        </Table.Tr>
      </Table.Tfoot>
    </Table>
  );
}
