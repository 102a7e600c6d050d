import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { upload } from '../../../lib/api.ts';
import { reloadSettings } from '../../../lib/settings.ts';

/** PUT /settings/{key} as a multipart upload with progress (0…1); then reloads the settings. */
export function useUploadSettingFile(key: string) {
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState(0);
  const mutation = useMutation({
    mutationFn: (file: File) => {
      setProgress(0);
      const form = new FormData();
      form.append('file', file, file.name);
      return upload<{ value: string }>(`/settings/${encodeURIComponent(key)}`, form, setProgress);
    },
    onSuccess: () => reloadSettings(queryClient),
  });
  return { ...mutation, progress };
}
