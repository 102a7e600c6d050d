import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** A form's buttons: Cancel when the form is in a dialog, then Save (editing) or Create (new). */
export function FormActions({ editing, saving, onCancel }: { editing: boolean; saving: boolean; onCancel?: () => void }) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end">
      {onCancel && (
        <Button variant="default" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
      )}
      <Button type="submit" loading={saving}>
        {editing ? t('common.save') : t('common.create')}
      </Button>
    </Group>
  );
}
