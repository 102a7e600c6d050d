import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ChangeLogModel } from '@lm/contract';
import type { ChangeLogList, ChangeOperation } from '@lm/contract/change-log';
import { api } from '../../lib/api.ts';

export interface ChangeLogParams {
  recordId?: number;
  operation?: ChangeOperation;
  filter?: string;
  sort: '-timestamp' | 'timestamp';
  offset: number;
  limit: number;
}

export function fetchChangeLog(model: ChangeLogModel, params: ChangeLogParams, signal?: AbortSignal): Promise<ChangeLogList> {
  return api<ChangeLogList>(`/changes/${model}`, { query: { ...params }, signal });
}

export function useChangeLog(model: ChangeLogModel, params: ChangeLogParams) {
  return useQuery({
    queryKey: ['changes', model, params],
    queryFn: ({ signal }) => fetchChangeLog(model, params, signal),
    placeholderData: keepPreviousData,
  });
}
