import { useEffect, useState } from 'react';
import { Modal, type ModalProps } from '@mantine/core';

/**
 * A dialog that is shown while it is mounted (`{open && <Dialog …>}`). Mantine returns focus only
 * when `opened` turns false, never when the modal is unmounted; this one gives the keyboard focus
 * back to the control that opened it, so that a keyboard or screen-reader user goes on from there.
 */
export function Dialog(props: Omit<ModalProps, 'opened'>) {
  const [opener] = useState(() => (typeof document === 'undefined' ? null : (document.activeElement as HTMLElement | null)));
  useEffect(
    () => () => {
      // After the modal's own clean-up, which would otherwise leave the focus on the page body.
      setTimeout(() => {
        if (opener?.isConnected && opener !== document.body) opener.focus();
      }, 0);
    },
    [opener],
  );
  return <Modal opened returnFocus={false} {...props} />;
}
