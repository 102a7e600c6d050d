import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Button, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { reportClientError } from '../lib/client-errors.ts';
import { isChunkLoadError, markChunkFailed } from './version-check.ts';

interface Props {
  children: ReactNode;
  /** What is shown instead of the children once they failed. */
  fallback: (error: unknown) => ReactNode;
  /** A new value (the next page's path) shows the children again. */
  resetKey?: string;
}

interface State {
  failed: boolean;
  error: unknown;
}

/**
 * Keeps a failure in one part of the app from blanking all of it. A part whose script could not be
 * loaded (a deployment replaced it, or it hung) raises the reload alert; any other error is
 * reported to the server's log (/api/client-errors) and the fallback shows.
 */
export class ErrorBoundary extends Component<Props, State> {
  state: State = { failed: false, error: undefined };

  static getDerivedStateFromError(error: unknown): State {
    return { failed: true, error };
  }

  componentDidCatch(error: unknown, info: ErrorInfo): void {
    if (isChunkLoadError(error)) void markChunkFailed();
    else reportClientError(error, info.componentStack ?? undefined);
  }

  componentDidUpdate(previous: Props): void {
    if (this.state.failed && previous.resetKey !== this.props.resetKey) this.setState({ failed: false, error: undefined });
  }

  render(): ReactNode {
    return this.state.failed ? this.props.fallback(this.state.error) : this.props.children;
  }
}

/**
 * The page that replaces one that failed: what happened in the person's language, a reload and a
 * way home. `inRouter` links home within the app; outside it (the shell itself failed) the link
 * loads the home page anew.
 */
export function SomethingWentWrong({ inRouter }: { inRouter: boolean }) {
  const { t } = useTranslation();
  const home = inRouter ? (
    <Button component={Link} to="/" variant="default">
      {t('notFound.home')}
    </Button>
  ) : (
    <Button component="a" href="/" variant="default">
      {t('notFound.home')}
    </Button>
  );
  return (
    <Stack align="flex-start" role="alert" data-testid="render-error" p={inRouter ? 0 : 'md'}>
      <Title order={1} size="h2">
        {t('shell.errorTitle')}
      </Title>
      <Text>{t('shell.errorText')}</Text>
      <Group>
        <Button onClick={() => window.location.reload()}>{t('shell.reload')}</Button>
        {home}
      </Group>
    </Stack>
  );
}

/** A page that failed: nothing for a chunk (the reload alert above says what to do), else the error page. */
export function pageFallback(error: unknown): ReactNode {
  return isChunkLoadError(error) ? null : <SomethingWentWrong inRouter />;
}
