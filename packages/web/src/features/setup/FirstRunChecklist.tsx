import { useState } from 'react';
import { Button, CloseButton, Group, List, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCheck, IconCircleDashed } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useAuth } from '../../lib/auth.ts';
import { useSetupStatus } from './api/setup-status.ts';
import { CHECKLIST_STEPS, checklistDismissed, checklistProgress, checklistShown, dismissChecklist } from './checklist.ts';

/**
 * A new installation's first steps, for its administrators, above their home page: what to set up
 * first, each with the way there and ticked once done. It goes away when the required steps are
 * done, or when the administrator hides it (remembered in this browser).
 */
export default function FirstRunChecklist() {
  const { t } = useTranslation();
  const { user, ability } = useAuth();
  const isAdministrator = Boolean(user) && ability.can('update', 'Setting');
  const [dismissed, setDismissed] = useState(() => (user ? checklistDismissed(localStorage, user.id) : true));
  const status = useSetupStatus(isAdministrator && !dismissed);
  if (!user || !isAdministrator || !checklistShown(status.data, dismissed)) return null;
  const progress = checklistProgress(status.data!);
  return (
    <Paper withBorder p="md" mb="lg" component="section" aria-labelledby="first-run-title" data-testid="first-run-checklist">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={4}>
          <Title order={2} size="h4" id="first-run-title">
            {t('setup.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('setup.progress', { done: progress.done, of: progress.of })}
          </Text>
        </Stack>
        <CloseButton
          aria-label={t('setup.dismiss')}
          title={t('setup.dismiss')}
          onClick={() => {
            dismissChecklist(localStorage, user.id);
            setDismissed(true);
          }}
        />
      </Group>
      <List spacing="sm" mt="md" center>
        {CHECKLIST_STEPS.map((step) => {
          const done = status.data![step.done];
          return (
            <List.Item
              key={step.key}
              data-testid={`setup-step-${step.key}`}
              data-done={done}
              icon={
                <ThemeIcon color={done ? 'teal' : 'gray'} variant={done ? 'filled' : 'light'} size={24} radius="xl">
                  {done ? <IconCheck size={14} aria-label={t('setup.done')} /> : <IconCircleDashed size={14} aria-label={t('setup.toDo')} />}
                </ThemeIcon>
              }
            >
              <Group gap="xs" wrap="wrap">
                <Text size="sm" td={done ? 'line-through' : undefined} c={done ? 'dimmed' : undefined}>
                  {t(`setup.steps.${step.key}`)}
                  {step.optional ? ` ${t('setup.optional')}` : ''}
                </Text>
                {!done && step.to && (
                  <Button component={Link} to={step.to} size="compact-sm" variant="light">
                    {t(`setup.go.${step.key}`)}
                  </Button>
                )}
              </Group>
            </List.Item>
          );
        })}
      </List>
    </Paper>
  );
}
