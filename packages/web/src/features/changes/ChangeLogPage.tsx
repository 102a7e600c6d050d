import { useEffect, useState } from 'react';
import { Alert, Group, NumberInput, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { CHANGE_LOG_MODELS, LIST_FILTER_MAX_LENGTH, SELECT_SEARCH_DEBOUNCE_MS, type ChangeLogModel } from '@lm/contract';
import { CHANGE_OPERATIONS, type ChangeOperation } from '@lm/contract/change-log';
import { BusyOverlay } from '../../components/BusyOverlay.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useAbility } from '../../lib/auth.ts';
import { useChangeLog, type ChangeLogParams } from './api.ts';
import { ChangeEntryCard } from './ChangeEntryCard.tsx';
import { Paging } from '../../components/Paging.tsx';
import { LoadError } from '../../components/LoadError.tsx';

const PAGE_SIZE = 20;

const isModel = (value: string | undefined): value is ChangeLogModel => (CHANGE_LOG_MODELS as readonly string[]).includes(value ?? '');
const isOperation = (value: string | null): value is ChangeOperation => (CHANGE_OPERATIONS as readonly string[]).includes(value ?? '');

/** The filters live in the URL, so that a record's page can link to its own history. */
function useChangeLogSearch() {
  const [search, setSearch] = useSearchParams();
  const recordId = Number(search.get('recordId'));
  const operation = search.get('operation');
  const page = Math.max(1, Number(search.get('page')) || 1);
  const params: Omit<ChangeLogParams, 'offset' | 'limit'> & { page: number } = {
    recordId: Number.isInteger(recordId) && recordId > 0 ? recordId : undefined,
    operation: isOperation(operation) ? operation : undefined,
    filter: search.get('filter') ?? undefined,
    sort: search.get('sort') === 'timestamp' ? 'timestamp' : '-timestamp',
    page,
  };
  const update = (changes: Record<string, string | number | undefined>) => {
    const next = new URLSearchParams(search);
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined || value === '') next.delete(key);
      else next.set(key, String(value));
    }
    if (!('page' in changes)) next.delete('page');
    setSearch(next, { replace: true });
  };
  return { params, update };
}

export default function ChangeLogPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const ability = useAbility();
  const { modelName } = useParams();
  const { params, update } = useChangeLogSearch();
  const [filterInput, setFilterInput] = useState(params.filter ?? '');
  const [debouncedFilter] = useDebouncedValue(filterInput, SELECT_SEARCH_DEBOUNCE_MS);
  const [onlyChanged, setOnlyChanged] = useState(false);
  const model = isModel(modelName) ? modelName : undefined;

  useEffect(() => {
    if ((params.filter ?? '') !== debouncedFilter.trim()) update({ filter: debouncedFilter.trim() || undefined });
    // Only the typed text drives this; the URL is the result.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debouncedFilter]);

  const { page, ...query } = params;
  const changes = useChangeLog(model ?? 'User', { ...query, offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE });
  const modelLabel = model ? t(`changes.models.${model}`) : (modelName ?? '');
  const pageCount = Math.max(1, Math.ceil((changes.data?.totalCount ?? 0) / PAGE_SIZE));

  return (
    <Stack>
      <PageTitle title={t('changes.title', { model: modelLabel })} />
      <Group align="flex-end" wrap="wrap">
        <Select
          label={t('changes.model')}
          data={CHANGE_LOG_MODELS.filter((name) => ability.can('view-change-log', name)).map((name) => ({ value: name, label: t(`changes.models.${name}`) }))}
          value={model ?? null}
          onChange={(value) => {
            if (!value) return;
            setFilterInput('');
            navigate(`/changes/${value}?sort=${params.sort}`);
          }}
          allowDeselect={false}
          w={200}
        />
        <NumberInput
          label={t('changes.recordId')}
          value={params.recordId ?? ''}
          onChange={(value) => update({ recordId: typeof value === 'number' && value > 0 ? value : undefined })}
          min={1}
          allowDecimal={false}
          allowNegative={false}
          w={130}
        />
        <Select
          label={t('changes.operation')}
          data={CHANGE_OPERATIONS.map((operation) => ({ value: operation, label: t(`changes.operations.${operation}`) }))}
          value={params.operation ?? null}
          onChange={(value) => update({ operation: value ?? undefined })}
          placeholder={t('changes.allOperations')}
          clearable
          w={160}
        />
        <TextInput
          label={t('changes.search')}
          leftSection={<IconSearch size={16} aria-hidden />}
          value={filterInput}
          maxLength={LIST_FILTER_MAX_LENGTH}
          onChange={(event) => setFilterInput(event.currentTarget.value)}
          w={220}
        />
        <Select
          label={t('changes.order')}
          data={[
            { value: '-timestamp', label: t('changes.newestFirst') },
            { value: 'timestamp', label: t('changes.oldestFirst') },
          ]}
          value={params.sort}
          onChange={(value) => value && update({ sort: value })}
          allowDeselect={false}
          w={170}
        />
        <Switch label={t('changes.onlyChanged')} checked={onlyChanged} onChange={(event) => setOnlyChanged(event.currentTarget.checked)} mb={8} />
      </Group>

      {!model && <Alert color="red">{t('changes.unknownModel', { model: modelName })}</Alert>}
      {model && <LoadError error={changes.error} />}
      {model && changes.isPending && <BusyOverlay />}
      {model && changes.data && (
        <>
          <Text size="sm" c="dimmed" data-testid="change-count">
            {t('changes.count', { count: changes.data.totalCount })}
          </Text>
          {changes.data.totalCount === 0 && (
            <Text c="dimmed" data-testid="change-log-empty">
              {params.recordId || params.operation || params.filter ? t('changes.noMatch') : t('changes.none', { model: modelLabel })}
            </Text>
          )}
          {changes.data.items.map((entry) => (
            <ChangeEntryCard key={entry.id} entry={entry} references={changes.data.references} onlyChanged={onlyChanged} onSelectRecord={(recordId) => update({ recordId })} />
          ))}
          {pageCount > 1 && <Paging total={pageCount} value={page} onChange={(next) => update({ page: next })} />}
        </>
      )}
    </Stack>
  );
}
