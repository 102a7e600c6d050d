import { Alert } from '@mantine/core';
import { errorText } from '../lib/notify.ts';

/**
 * Where a page's data could not be loaded (the database away, a refused query), the reason in the
 * person's language in place of an empty page, or a generic text where the answer names none (a
 * proxy's 503 or 504); nothing while there is no error.
 */
export function LoadError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <Alert color="red" role="alert">
      {errorText(error, undefined, 'common.loadFailed')}
    </Alert>
  );
}
