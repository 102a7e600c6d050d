import { lazy, Suspense, useEffect, useSyncExternalStore } from 'react';
import type { OpenConfirmModal } from '@mantine/modals';
import { withMoreStyles } from '../styles/load.ts';

/**
 * Confirmation dialogs go through @mantine/modals, whose provider only hears the window events that
 * `modals.open…()` sends while it is mounted. It mounts with the first dialog, not on every first
 * visit: it, the modal and its focus trap came to 27 KB of the first load (DESIGN.md section 9).
 * Open them through `openConfirmModal` here (the lint forbids importing @mantine/modals elsewhere).
 */
let wanted = false;
const listeners = new Set<() => void>();
let providerMounted!: () => void;
const providerReady = new Promise<void>((resolve) => (providerMounted = resolve));

const Provider = lazy(() =>
  withMoreStyles(() => import('@mantine/modals')).then(({ ModalsProvider }) => ({
    default: function Provider() {
      // Runs after the provider's own effects, which subscribe to the events.
      useEffect(() => providerMounted(), []);
      return <ModalsProvider>{null}</ModalsProvider>;
    },
  })),
);

/** Where the dialogs show once one was asked for; mounted once beside the router. */
export function ModalsHost() {
  const show = useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    () => wanted,
  );
  return show ? (
    <Suspense fallback={null}>
      <Provider />
    </Suspense>
  ) : null;
}

/** `modals.openConfirmModal` once the provider listens. */
export function openConfirmModal(props: OpenConfirmModal): void {
  if (!wanted) {
    wanted = true;
    listeners.forEach((listener) => listener());
  }
  void providerReady.then(async () => (await import('@mantine/modals')).modals.openConfirmModal(props));
}
