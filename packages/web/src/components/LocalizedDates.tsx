import { useState, type ReactNode } from 'react';
import { DateInput, DatesProvider, type DateFormatter, type DateInputProps } from '@mantine/dates';
// Every date picker of the app sits in this wrapper: its styles load with the pages that have one.
import '@mantine/dates/styles.css';
import { useTranslation } from 'react-i18next';
import 'dayjs/locale/de';
import 'dayjs/locale/es';
import 'dayjs/locale/fr';
import 'dayjs/locale/it';
import { currentLocale } from '../lib/i18n.ts';
import { formatDate, parseDate } from '../lib/format.ts';

/** Date pickers inside follow the interface language: month and weekday names, first day of the week. */
export function LocalizedDates({ children }: { children: ReactNode }) {
  useTranslation(); // renders again when the language changes
  return <DatesProvider settings={{ locale: currentLocale() }}>{children}</DatesProvider>;
}

/** What a date picker input shows: the days as every table shows them (one format, lib/format.ts). */
export const pickerDates: DateFormatter = ({ date, labelSeparator }) => {
  const days = (Array.isArray(date) ? date : [date]).filter((day): day is string | Date => Boolean(day));
  return days.map((day) => formatDate(typeof day === 'string' ? day.slice(0, 10) : day)).join(` ${labelSeparator} `);
};

/**
 * A single date input in the interface language, shown and typed as the language writes dates.
 * Escape with its calendar open closes the calendar only: a dialog around it (Mantine's modal, which
 * listens before the input) stays, with what was typed into it.
 */
export function LocalizedDateInput(props: DateInputProps) {
  const [calendarOpen, setCalendarOpen] = useState(false);
  const { popoverProps } = props;
  return (
    <LocalizedDates>
      <DateInput
        valueFormat={(day) => formatDate(day)}
        dateParser={(text) => parseDate(text)}
        {...props}
        popoverProps={{
          ...popoverProps,
          onOpen: () => {
            setCalendarOpen(true);
            popoverProps?.onOpen?.();
          },
          onClose: () => {
            setCalendarOpen(false);
            popoverProps?.onClose?.();
          },
        }}
        data-mantine-stop-propagation={calendarOpen || undefined}
      />
    </LocalizedDates>
  );
}
