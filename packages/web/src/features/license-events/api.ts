import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { LicenseEventList, LicenseEventType } from '@lm/contract/license-events';
import { api, buildUrl } from '../../lib/api.ts';

export interface LicenseEventFilters {
  type?: LicenseEventType;
  code?: string;
  machine?: string;
  licenseId?: number;
  tanId?: number;
}

export interface LicenseEventParams extends LicenseEventFilters {
  sort: '-at' | 'at';
  offset: number;
  limit: number;
}

/** `GET /api/license-events`: the events staff may see. */
export function useLicenseEvents(params: LicenseEventParams) {
  return useQuery({
    queryKey: ['license-events', params],
    queryFn: ({ signal }) => api<LicenseEventList>('/license-events', { query: { ...params }, signal }),
    placeholderData: keepPreviousData,
  });
}

/** The CSV export's address with the same filters (a plain download link). */
export function licenseEventsCsvUrl(filters: LicenseEventFilters): string {
  return buildUrl('/license-events.csv', { ...filters });
}
