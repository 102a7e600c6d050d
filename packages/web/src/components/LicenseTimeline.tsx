import { Badge, Group, Loader, Stack, Text, Timeline } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { LicenseEvent, LicenseEventList } from '@lm/contract/license-events';
import { useQuery } from '@tanstack/react-query';
import { api } from '../lib/api.ts';
import { formatDateTime } from '../lib/format.ts';
import { Dialog } from './Dialog.tsx';

const COLORS: Record<LicenseEvent['type'], string> = {
  'activation.refused': 'red',
  'seat.denied': 'orange',
  'overage.granted': 'yellow',
  'lease.expired': 'gray',
  'clock.tampered': 'grape',
  'offline.deactivated': 'blue',
  'desktop.signin': 'teal',
};

/** The timeline of one license or of a TAN's licenses, newest first. */
function useLicenseTimeline(of: { licenseId: number } | { tanId: number }) {
  const path = 'licenseId' in of ? `/licenses/${of.licenseId}/events` : `/tans/${of.tanId}/events`;
  return useQuery({
    queryKey: ['license-events', 'timeline', path],
    queryFn: ({ signal }) => api<LicenseEventList>(path, { query: { limit: 50 }, signal }),
  });
}

/** One event as the timeline and the events page word it: its type, the refusal's reason, the machine. */
export function LicenseEventText({ event }: { event: LicenseEvent }) {
  const { t } = useTranslation();
  return (
    <Stack gap={2}>
      <Group gap="xs">
        <Badge color={COLORS[event.type]} variant="light" tt="none">
          {t(`licenseEvents.types.${event.type}`)}
        </Badge>
        {event.repeats > 0 && (
          <Text span size="xs" c="dimmed">
            {t('licenseEvents.repeats', { count: event.repeats })}
          </Text>
        )}
      </Group>
      {event.code && <Text size="sm">{t(`errors.${event.code}`, { defaultValue: event.code })}</Text>}
      {event.machineId && (
        <Text size="xs" c="dimmed" ff="monospace">
          {t('licenseEvents.machine')}: {event.machineId}
        </Text>
      )}
    </Stack>
  );
}

/** The runtime events of a license or of a TAN's licenses (DESIGN.md section 6j), newest first. */
export function LicenseTimeline(props: { licenseId: number } | { tanId: number }) {
  const { t } = useTranslation();
  const { data, isLoading } = useLicenseTimeline(props);
  if (isLoading) return <Loader size="sm" />;
  if (!data?.items.length) {
    return (
      <Text size="sm" c="dimmed" data-testid="license-timeline-empty">
        {t('licenseEvents.none')}
      </Text>
    );
  }
  return (
    <Timeline bulletSize={12} lineWidth={2} data-testid="license-timeline">
      {data.items.map((event) => (
        <Timeline.Item key={event.id} title={formatDateTime(event.at)} color={COLORS[event.type]}>
          <LicenseEventText event={event} />
        </Timeline.Item>
      ))}
    </Timeline>
  );
}

/** A license's runtime events in a dialog of its card: "why was I refused?" with time and machine. */
export function LicenseTimelineDialog({ licenseId, title, onClose }: { licenseId: number; title: string; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Dialog onClose={onClose} size="lg" title={t('licenseEvents.timelineOf', { name: title })}>
      <LicenseTimeline licenseId={licenseId} />
    </Dialog>
  );
}
