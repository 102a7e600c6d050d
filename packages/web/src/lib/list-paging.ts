import { useState } from 'react';
import { LIST_DEFAULT_LIMIT } from '@lm/contract';

/**
 * Paging of the large lists (TANs, licenses, users). While the server counted every match
 * (totalCountExact), pages are numbered and asked for by offset; past its count limit ("more than
 * 10,000") the next page is asked for by the previous page's cursor, which stays fast however deep
 * the list goes. The cursors of the pages seen are kept, so that "previous" needs no offset either.
 */
export interface ListPaging {
  page: number;
  limit: number;
  /** offset, or the cursor of the page before, for the list call. */
  request: { offset: number; after?: string };
  setPage(page: number): void;
  next(cursor: string): void;
  previous(): void;
}

interface State {
  key: string;
  page: number;
  /** cursors[i]: the cursor that leads to page i + 2. */
  cursors: string[];
}

/** Paging that starts again at page 1 whenever `resetKey` (the filters and the sort) changes. */
export function useListPaging(resetKey: string, limit = LIST_DEFAULT_LIMIT): ListPaging {
  const [state, setState] = useState<State>({ key: resetKey, page: 1, cursors: [] });
  const current = state.key === resetKey ? state : { key: resetKey, page: 1, cursors: [] };
  if (current !== state) setState(current);
  const cursor = current.page > 1 ? current.cursors[current.page - 2] : undefined;
  return {
    page: current.page,
    limit,
    request: cursor ? { offset: 0, after: cursor } : { offset: (current.page - 1) * limit },
    setPage: (page) => setState({ key: resetKey, page, cursors: [] }),
    next: (next) => setState({ key: resetKey, page: current.page + 1, cursors: [...current.cursors.slice(0, current.page - 1), next] }),
    previous: () => setState({ ...current, page: Math.max(1, current.page - 1) }),
  };
}
