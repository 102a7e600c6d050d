import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import classes from './FormActions.module.css';

interface FormActionsProps {
  /** Save (editing) or Create (new), unless `submitLabel` names what the form does. */
  editing?: boolean;
  submitLabel?: string;
  saving: boolean;
  onCancel?: () => void;
}

/**
 * A form's buttons: Cancel when it can be left (a dialog, a page of its own), then its submit
 * button. In a dialog they stay in view however long the form (FormActions.module.css).
 */
export function FormActions({ editing = false, submitLabel, saving, onCancel }: FormActionsProps) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end" className={classes.actions}>
      {onCancel && (
        <Button variant="default" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
      )}
      <Button type="submit" loading={saving}>
        {submitLabel ?? (editing ? t('common.save') : t('common.create'))}
      </Button>
    </Group>
  );
}
