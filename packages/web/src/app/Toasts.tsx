import { lazy, Suspense, useState } from 'react';
import { useNotifications } from '@mantine/notifications';

/** In a module of its own: a dynamic import of @mantine/notifications itself would not split it off. */
const Container = lazy(() => import('./ToastContainer.tsx'));

/**
 * `notifications.show()` only fills a store; the toasts' container (7 KB of the first load with its
 * transitions) loads with the first toast, shows what is waiting, and stays for the ones after.
 */
export function Toasts() {
  const { notifications, queue } = useNotifications();
  const [wanted, setWanted] = useState(false);
  if (!wanted && notifications.length + queue.length > 0) setWanted(true);
  return wanted ? (
    <Suspense fallback={null}>
      <Container />
    </Suspense>
  ) : null;
}
