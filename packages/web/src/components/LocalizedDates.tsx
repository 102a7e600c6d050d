import type { ReactNode } from 'react';
import { DateInput, DatesProvider, type DateInputProps } from '@mantine/dates';
import { useTranslation } from 'react-i18next';
import 'dayjs/locale/de';
import 'dayjs/locale/es';
import 'dayjs/locale/fr';
import 'dayjs/locale/it';
import { currentLocale } from '../lib/i18n.ts';

/** Date pickers inside follow the interface language: month and weekday names, first day of the week. */
export function LocalizedDates({ children }: { children: ReactNode }) {
  useTranslation(); // renders again when the language changes
  return <DatesProvider settings={{ locale: currentLocale() }}>{children}</DatesProvider>;
}

/** A single date input in the interface language. */
export function LocalizedDateInput(props: DateInputProps) {
  return (
    <LocalizedDates>
      <DateInput {...props} />
    </LocalizedDates>
  );
}
