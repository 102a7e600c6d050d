import { Alert } from '@mantine/core';
import { errorText } from '../lib/notify.ts';

/**
 * Where a page's data could not be loaded (the database away, a refused query), the reason in the
 * person's language in place of an empty page; nothing while there is no error.
 */
export function LoadError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <Alert color="red" role="alert">
      {errorText(error)}
    </Alert>
  );
}
