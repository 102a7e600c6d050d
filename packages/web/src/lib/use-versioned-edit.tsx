import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { EditConflictDialog, type ConflictRow } from '../components/EditConflictDialog.tsx';
import { api, ApiError } from './api.ts';
import { changedFields, same, type Body } from './changed-fields.ts';
import { formatDate, formatDateTime } from './format.ts';
import { showError } from './notify.ts';

const CALENDAR_DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface VersionedEditOptions<T> {
  /** The record's address below /api (`/tans/12`): GET loads it with its ETag, the change goes there. Null: a form that creates (the hook does nothing). */
  path: string | null;
  /** The record as the dialog was opened with (a list row), shown until the GET answers. */
  initial: T | null;
  /** The record's editable fields, as the change's body names them. */
  bodyOf: (record: T) => Body;
  /** The fields' labels for the conflict dialog: message keys, or texts already translated. */
  labels: Record<string, string>;
  method?: 'PUT' | 'PATCH';
  /** The form is to show this record (loaded newer than the list row, or reloaded after a conflict). */
  onReload: (record: T) => void;
  /** The change was saved (also when applied again from the conflict dialog). */
  onSaved: (record: T) => void | Promise<void>;
  /** A value as the conflict dialog shows it; undefined: the default (text, yes/no, lists joined). */
  formatValue?: (field: string, value: unknown) => string | undefined;
}


interface Conflict<T> {
  current: T;
  etag: string | undefined;
  changes: Body;
  rows: ConflictRow[];
}

/**
 * An edit dialog's optimistic concurrency (issue 47): loads the record with its ETag, sends only the
 * fields the person changed with If-Match, and when someone else changed the record meanwhile (412
 * ERR_EDIT_CONFLICT) shows what changed and lets the person reload or apply their changes again.
 * When only fields the dialog does not edit changed (a TAN's activations), the changes are applied to
 * the current record at once: sending only what the person changed reverts nothing.
 */
export function useVersionedEdit<T>(options: VersionedEditOptions<T>): { save: (body: Body) => Promise<void>; saving: boolean; conflictDialog: ReactNode } {
  const { t, i18n } = useTranslation();
  const latest = useRef(options);
  latest.current = options;
  const base = useRef<T>(options.initial as T);
  const etag = useRef<string | undefined>(undefined);
  const [conflict, setConflict] = useState<Conflict<T> | null>(null);
  const [saving, setSaving] = useState(false);
  // The load of the version the change is made to: a save waits for it, so that it always sends If-Match.
  const loading = useRef<Promise<void>>(Promise.resolve());

  useEffect(() => {
    if (options.path === null) return;
    const controller = new AbortController();
    loading.current = api<T>(options.path, { signal: controller.signal, onEtag: (tag) => (etag.current = tag) })
      .then((loaded) => {
        const { bodyOf, onReload } = latest.current;
        const shown = base.current;
        base.current = loaded;
        if (!same(bodyOf(loaded), bodyOf(shown))) onReload(loaded);
      })
      .catch(() => undefined);
    return () => controller.abort();
  }, [options.path]);

  const format = useCallback(
    (field: string, value: unknown): string => {
      const own = latest.current.formatValue?.(field, value);
      if (own !== undefined) return own;
      if (value === null || value === undefined || value === '') return '—';
      if (typeof value === 'boolean') return value ? t('common.yes') : t('common.no');
      if (Array.isArray(value)) return value.length ? value.map(String).join(', ') : '—';
      if (value instanceof Date) return formatDateTime(value);
      if (typeof value === 'string' && CALENDAR_DAY.test(value)) return formatDate(value);
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
    },
    [t],
  );

  /** Sends `changes` to the version `tag`; a conflict in fields the dialog does not edit is applied again at once. */
  const send = useCallback(
    async (changes: Body): Promise<void> => {
      const { method = 'PUT', bodyOf, labels, onSaved } = latest.current;
      const path = latest.current.path!;
      for (let attempt = 0; ; attempt++) {
        try {
          const saved = await api<T>(path, { method, body: changes, ifMatch: etag.current, onEtag: (tag) => (etag.current = tag) });
          base.current = saved;
          await onSaved(saved);
          return;
        } catch (error) {
          const current = error instanceof ApiError && error.code === 'ERR_EDIT_CONFLICT' ? (error.body?.current as T | undefined) : undefined;
          if (!current) throw error;
          const before = bodyOf(base.current);
          const now = bodyOf(current);
          const theirs = Object.keys(now).filter((field) => !same(now[field], before[field]));
          if (!theirs.length && attempt < 3) {
            base.current = current;
            etag.current = (error as ApiError).etag;
            continue;
          }
          const fields = [...new Set([...theirs, ...Object.keys(changes)])].filter((field) => field in labels);
          const rows = fields.map((field) => ({
            field,
            // A message key, or a label already in the interface language (the settings' fields).
            label: i18n.exists(labels[field]) ? t(labels[field]) : labels[field],
            mine: format(field, field in changes ? changes[field] : before[field]),
            current: format(field, now[field]),
            changedMeanwhile: theirs.includes(field),
            changedByMe: field in changes,
          }));
          setConflict({ current, etag: (error as ApiError).etag, changes, rows });
          return;
        }
      }
    },
    [format, t, i18n],
  );

  const save = useCallback(
    async (body: Body) => {
      setSaving(true);
      try {
        await loading.current;
        await send(changedFields(body, latest.current.bodyOf(base.current)));
      } finally {
        setSaving(false);
      }
    },
    [send],
  );

  const reload = () => {
    if (!conflict) return;
    base.current = conflict.current;
    etag.current = conflict.etag;
    setConflict(null);
    latest.current.onReload(conflict.current);
  };

  const applyAgain = async () => {
    if (!conflict) return;
    base.current = conflict.current;
    etag.current = conflict.etag;
    const { changes } = conflict;
    setConflict(null);
    setSaving(true);
    try {
      await send(changes);
    } catch (error) {
      // The form keeps the person's values; saving again compares them with the current record.
      showError(error);
    } finally {
      setSaving(false);
    }
  };

  const conflictDialog = conflict ? <EditConflictDialog rows={conflict.rows} busy={saving} onReload={reload} onApplyAgain={() => void applyAgain()} onDismiss={() => setConflict(null)} /> : null;
  return { save, saving, conflictDialog };
}
