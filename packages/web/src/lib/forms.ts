import { schemaResolver } from '@mantine/form';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import i18n from './i18n.ts';

/**
 * Validates a Mantine form with a shared zod schema. Zod's own messages are already localized;
 * messages that the contract gives as translation keys (`validation.*`) are translated here.
 */
export function formValidator(schema: StandardSchemaV1) {
  const resolve = schemaResolver(schema, { sync: true });
  return (values: unknown) =>
    Object.fromEntries(
      Object.entries(resolve(values)).map(([path, message]) => [path, typeof message === 'string' && message.startsWith('validation.') ? i18n.t(message) : message]),
    );
}
