import { DateInput, DatesProvider, type DateInputProps } from '@mantine/dates';
import { useTranslation } from 'react-i18next';
import 'dayjs/locale/de';
import 'dayjs/locale/es';
import 'dayjs/locale/fr';
import 'dayjs/locale/it';

/** A date input whose calendar (month and weekday names, first day of the week) follows the interface language. */
export function LocalizedDateInput(props: DateInputProps) {
  const { i18n } = useTranslation();
  return (
    <DatesProvider settings={{ locale: i18n.language }}>
      <DateInput {...props} />
    </DatesProvider>
  );
}
