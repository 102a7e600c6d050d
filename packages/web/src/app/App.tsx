import { useMemo } from 'react';
import { MantineProvider } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Route, Routes } from 'react-router';
import { Guard } from './Guard.tsx';
import { NotFoundPage, ROUTES } from './routes.tsx';
import { Shell } from './Shell.tsx';
import { BUILT_IN_LABEL_KEYS, cssVariablesResolver, themeFor, type BuiltInLabels } from './theme.ts';
import { listenAcrossTabs } from '../lib/cache-broadcast.ts';
import { ModalsHost } from '../components/modals.tsx';
import { Toasts } from './Toasts.tsx';
import { ErrorBoundary, SomethingWentWrong } from './ErrorBoundary.tsx';
import { NewVersionAlert } from './ReloadAlert.tsx';
import { isChunkLoadError, versionCheck } from './version-check.ts';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // The API client already retries network failures and 502s (spec: up to 5 times); other errors are final.
      retry: false,
      refetchOnWindowFocus: false,
    },
  },
});

// From the start, so that a cache no open page shows is cleared when another tab changes its data.
listenAcrossTabs(queryClient);

/**
 * A declarative router: the app loads no data through routes (TanStack Query does), and the data
 * router's code was 15 KB of the first load (DESIGN.md section 9).
 */
const routes = (
  <Route element={<Shell />}>
    {ROUTES.map(({ path, page: Page, requires }) => (
      <Route
        key={path}
        path={path}
        element={
          <Guard requires={requires}>
            <Page />
          </Guard>
        }
      />
    ))}
    <Route path="*" element={<NotFoundPage />} />
  </Route>
);

/** The shell itself failed (a page's failure stays inside the shell): the same answers, without the navbar. */
function shellFallback(error: unknown) {
  return isChunkLoadError(error) ? <NewVersionAlert reason={versionCheck.reason ?? 'load-failed'} /> : <SomethingWentWrong inRouter={false} />;
}

export function App() {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage;
  const theme = useMemo(
    () => themeFor(Object.fromEntries(Object.entries(BUILT_IN_LABEL_KEYS).map(([name, key]) => [name, t(key)])) as unknown as BuiltInLabels),
    // The labels change with the language only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [language],
  );
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={queryClient}>
        <Toasts />
        <ErrorBoundary fallback={shellFallback}>
          <BrowserRouter>
            <Routes>{routes}</Routes>
          </BrowserRouter>
        </ErrorBoundary>
        <ModalsHost />
      </QueryClientProvider>
    </MantineProvider>
  );
}
