import { lazy, Suspense, useMemo } from 'react';
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { Guard } from './Guard.tsx';
import { ROUTES } from './routes.tsx';
import { Shell } from './Shell.tsx';
import { cssVariablesResolver, themeFor } from './theme.ts';
import { listenAcrossTabs } from '../lib/cache-broadcast.ts';

/**
 * The pages open dialogs through `modals.open…()`, which are window events; the provider that shows
 * them only has to be mounted, not wrap the app, so it loads after the first paint.
 */
const Modals = lazy(() => import('@mantine/modals').then(({ ModalsProvider }) => ({ default: () => <ModalsProvider>{null}</ModalsProvider> })));


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

const router = createBrowserRouter([
  {
    element: <Shell />,
    children: ROUTES.map(({ path, page: Page, requires }) => ({
      path,
      element: (
        <Guard requires={requires}>
          <Page />
        </Guard>
      ),
    })),
  },
  { path: '*', element: <Shell />, children: [{ path: '*', lazy: async () => ({ Component: (await import('./NotFoundPage.tsx')).default }) }] },
]);

export function App() {
  const { t } = useTranslation();
  const close = t('common.close');
  const theme = useMemo(() => themeFor(close), [close]);
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={queryClient}>
        <Notifications position="bottom-right" />
        <RouterProvider router={router} />
        <Suspense fallback={null}>
          <Modals />
        </Suspense>
      </QueryClientProvider>
    </MantineProvider>
  );
}
