import { describe, expect, it } from 'vitest';
import type { StatisticsResult } from '@lm/contract/statistics';
import { statisticsCsv } from './csv.ts';

const result: StatisticsResult = {
  category: 'trial-licenses',
  from: '2025-01-01',
  to: '2025-02-28',
  productId: null,
  months: [
    { month: '2025-01', values: { trials: 4, machines: 3, converted: 1, conversionRate: 1 / 3 } },
    { month: '2025-02', values: { trials: 0, machines: 0, converted: 0, conversionRate: 0 } },
  ],
  totals: { trials: 4, machines: 3, converted: 1, conversionRate: 1 / 3 },
};

describe('the statistics CSV', () => {
  it('has a header of labels, a line per month, the totals last, CRLF line ends', () => {
    const csv = statisticsCsv(result, ['trials', 'machines', 'converted', 'conversionRate'], {
      month: 'Month',
      total: 'Total',
      metric: (metric) => ({ trials: 'Trial licenses', machines: 'Machines', converted: 'Converted', conversionRate: 'Conversion rate' })[metric]!,
    });
    expect(csv.split('\r\n')).toEqual([
      'Month,Trial licenses,Machines,Converted,Conversion rate',
      `2025-01,4,3,1,${1 / 3}`,
      '2025-02,0,0,0,0',
      `Total,4,3,1,${1 / 3}`,
      '',
    ]);
  });

  it('quotes labels with separators or quotes', () => {
    const csv = statisticsCsv(result, ['trials'], { month: 'Mois; année', total: 'Total', metric: () => 'Licences "temporaires", essais' });
    expect(csv.split('\r\n')[0]).toBe('"Mois; année","Licences ""temporaires"", essais"');
  });

  it('writes the totals the server counted, not the months summed: a TAN over its count in two months is one TAN', () => {
    const overage: StatisticsResult = {
      category: 'overage',
      from: '2025-01-01',
      to: '2025-02-28',
      productId: null,
      months: [
        { month: '2025-01', values: { grants: 3, tans: 2 } },
        { month: '2025-02', values: { grants: 1, tans: 1 } },
      ],
      totals: { grants: 4, tans: 2 },
    };
    const csv = statisticsCsv(overage, ['grants', 'tans'], { month: 'Month', total: 'Total', metric: (metric) => metric });
    expect(csv.split('\r\n')).toEqual(['Month,grants,tans', '2025-01,3,2', '2025-02,1,1', 'Total,4,2', '']);
  });
});
