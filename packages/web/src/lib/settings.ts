import { useQuery, type QueryClient } from '@tanstack/react-query';
import { DEFAULT_PRODUCT_NAME, localizedSetting, type SettingsMap } from '@lm/contract';
import { api } from './api.ts';
import { useAuth } from './auth.ts';
import { currentLocale } from './i18n.ts';

export const SETTINGS_QUERY_KEY = ['settings'] as const;

/**
 * The application settings: the public theme for everyone, every key for administrators. They
 * depend on the session, so the first request waits for its check at start (spec section 4: they
 * load after the validation); asked for beside it too, they came twice on every first visit.
 */
export function useAppSettings() {
  const { initialized } = useAuth();
  return useQuery({ queryKey: SETTINGS_QUERY_KEY, queryFn: () => api<SettingsMap>('/settings'), staleTime: 60_000, enabled: initialized });
}

/** Spec section 4: settings are reloaded after each login, logout and validation. */
export function reloadSettings(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: SETTINGS_QUERY_KEY });
}

export function themeLink(settings: SettingsMap | undefined, key: 'theme.link.dataPrivacy' | 'theme.link.imprint'): string | null {
  return settings ? localizedSetting(settings, key, currentLocale()) : null;
}

/** The product's name as the theme sets it (`theme.productName`), else the default: the navbar and the browser tab show it. */
export function useProductName(): string {
  const name = useAppSettings().data?.['theme.productName'];
  return typeof name === 'string' && name.trim() ? name : DEFAULT_PRODUCT_NAME;
}
