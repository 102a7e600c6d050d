import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api.ts';
import { reloadSettings } from '../../../lib/settings.ts';

/** PUT /settings/{key} with `{ value }`, or DELETE /settings/{key} for null; then reloads the settings. */
export function useChangeSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (changes: [key: string, value: unknown][]) => {
      for (const [key, value] of changes) {
        const path = `/settings/${encodeURIComponent(key)}`;
        await (value === null ? api(path, { method: 'DELETE' }) : api(path, { method: 'PUT', body: { value } }));
      }
    },
    // Reload also after a partial failure: some keys may have changed.
    onSettled: () => reloadSettings(queryClient),
  });
}
