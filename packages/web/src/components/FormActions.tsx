import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { DialogActions } from './DialogActions.tsx';

interface FormActionsProps {
  /** Save (editing) or Create (new), unless `submitLabel` names what the form does. */
  editing?: boolean;
  submitLabel?: string;
  saving: boolean;
  onCancel?: () => void;
}

/** A form's buttons: Cancel when it can be left (a dialog, a page of its own), then its submit button; in view in a dialog. */
export function FormActions({ editing = false, submitLabel, saving, onCancel }: FormActionsProps) {
  const { t } = useTranslation();
  const submit = (
    <Button type="submit" loading={saving}>
      {submitLabel ?? (editing ? t('common.save') : t('common.create'))}
    </Button>
  );
  if (!onCancel) return <Group justify="flex-end">{submit}</Group>;
  return (
    <DialogActions>
      <Button variant="default" onClick={onCancel}>
        {t('common.cancel')}
      </Button>
      {submit}
    </DialogActions>
  );
}
