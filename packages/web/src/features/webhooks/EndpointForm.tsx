import { Checkbox, SimpleGrid, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useAuth } from '../../lib/auth.ts';
import { useTranslation } from 'react-i18next';
import { webhookEndpointFields, webhookEventsFor, type WebhookEndpoint, type WebhookEndpointFields, type WebhookEndpointWithSecret } from '@lm/contract/webhook';
import { FormActions } from '../../components/FormActions.tsx';
import { ApiError } from '../../lib/api.ts';
import { formValidator } from '../../lib/forms.ts';
import i18n from '../../lib/i18n.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { showFieldErrors } from '../../lib/server-errors.ts';
import { useVersionedEdit } from '../../lib/use-versioned-edit.tsx';
import { useEndpointsChanged, useSaveEndpoint } from './api/webhooks.ts';

interface Values {
  url: string;
  events: string[];
  enabled: boolean;
  description: string;
}

/** The form's message for a refused URL: the translation of the server's reason where there is one. */
function urlMessage(error: unknown): string | null {
  const detail = error instanceof ApiError ? error.body?.details?.find((item) => item.path === 'url') : undefined;
  if (!detail) return null;
  return detail.code && i18n.exists(`webhooks.urlErrors.${detail.code}`) ? i18n.t(`webhooks.urlErrors.${detail.code}`) : null;
}

const valuesOf = (endpoint: WebhookEndpoint | null): Values => ({ url: endpoint?.url ?? '', events: endpoint?.events ?? [], enabled: endpoint?.enabled ?? true, description: endpoint?.description ?? '' });
const bodyOf = (values: Values) => ({ ...values, description: values.description || null });
const ENDPOINT_LABELS = { url: 'webhooks.url', events: 'webhooks.events', enabled: 'webhooks.enabled', description: 'webhooks.description' };

/**
 * Create or edit an endpoint: its address, the events it receives, on or off, and a description. An
 * edit sends only what the person changed, with If-Match (a change made meanwhile is shown, never reverted).
 */
export function EndpointForm({ endpoint, onSaved, onCancel }: { endpoint: WebhookEndpoint | null; onSaved(saved: WebhookEndpoint | WebhookEndpointWithSecret): void; onCancel(): void }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const save = useSaveEndpoint(endpoint?.id ?? null);
  const form = useForm<Values>({
    initialValues: valuesOf(endpoint),
    validate: (values) => {
      const errors = formValidator(webhookEndpointFields)(values);
      // An empty address keeps the shared "required" text; an address of another kind learns what one must look like.
      if (errors.url && values.url.trim()) errors.url = t('webhooks.urlErrors.scheme');
      if (errors.events) errors.events = t('webhooks.eventsRequired');
      return errors;
    },
  });

  const endpointsChanged = useEndpointsChanged();
  const done = (saved: WebhookEndpoint | WebhookEndpointWithSecret) => {
    showSuccess(t(endpoint ? 'webhooks.saved' : 'webhooks.added'));
    onSaved(saved);
  };
  const edit = useVersionedEdit<WebhookEndpoint>({
    path: endpoint ? `/webhook-endpoints/${endpoint.id}` : null,
    initial: endpoint,
    bodyOf: (record) => bodyOf(valuesOf(record)),
    labels: ENDPOINT_LABELS,
    onReload: (current) => {
      form.setValues(valuesOf(current));
      form.resetDirty(valuesOf(current));
    },
    onSaved: async (saved) => {
      await endpointsChanged();
      done(saved);
    },
  });

  const submit = form.onSubmit(async (values) => {
    try {
      if (endpoint) await edit.save(bodyOf(values));
      else done(await save.mutateAsync(bodyOf(values) as WebhookEndpointFields));
    } catch (error) {
      const message = urlMessage(error);
      if (message) form.setFieldError('url', message);
      else if (!showFieldErrors(form, error)) showError(error, endpoint ? 'webhooks.saveFailed' : 'webhooks.addFailed');
    }
  });

  return (
    <form onSubmit={submit} noValidate data-testid="endpoint-form">
      <Stack>
        <TextInput label={t('webhooks.url')} description={t('webhooks.urlHint')} placeholder="https://crm.example.com/hooks/licenses" required {...form.getInputProps('url')} />
        <Checkbox.Group label={t('webhooks.events')} description={t('webhooks.eventsHint')} required {...form.getInputProps('events')}>
          <SimpleGrid cols={{ base: 1, xs: 2, sm: 3 }} mt="xs" spacing="xs">
            {webhookEventsFor(user?.accessRole ?? 'DISTRIBUTOR').map((type) => (
              <Checkbox key={type} value={type} label={type} />
            ))}
          </SimpleGrid>
        </Checkbox.Group>
        <Textarea label={t('webhooks.description')} autosize minRows={1} maxLength={500} {...form.getInputProps('description')} />
        <Switch label={t('webhooks.enabled')} {...form.getInputProps('enabled', { type: 'checkbox' })} />
        <FormActions editing={Boolean(endpoint)} saving={save.isPending || edit.saving} onCancel={onCancel} />
      </Stack>
      {edit.conflictDialog}
    </form>
  );
}
