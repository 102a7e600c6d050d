import { useQuery, type QueryClient } from '@tanstack/react-query';
import { localizedSetting, type SettingsMap } from '@lm/contract';
import { api } from './api.ts';
import { currentLocale } from './i18n.ts';

export const SETTINGS_QUERY_KEY = ['settings'] as const;

/** The application settings: the public theme for everyone, every key for administrators. */
export function useAppSettings() {
  return useQuery({ queryKey: SETTINGS_QUERY_KEY, queryFn: () => api<SettingsMap>('/settings'), staleTime: 60_000 });
}

/** Spec section 4: settings are reloaded after each login, logout and validation. */
export function reloadSettings(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: SETTINGS_QUERY_KEY });
}

export function themeLink(settings: SettingsMap | undefined, key: 'theme.link.dataPrivacy' | 'theme.link.imprint'): string | null {
  return settings ? localizedSetting(settings, key, currentLocale()) : null;
}
