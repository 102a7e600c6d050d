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
import { formatDate, parseDate, typedDateProblem } from '../lib/format.ts';

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
 * listens before the input) stays, with what was typed into it. A typed date it cannot take (not a
 * date, or beyond the allowed days) is said under the field when it is left: the field goes back to
 * its day, and no longer without a word.
 */
export function LocalizedDateInput(props: DateInputProps) {
  const { t } = useTranslation();
  const [calendarOpen, setCalendarOpen] = useState(false);
  const [typedError, setTypedError] = useState<string | null>(null);
  const { popoverProps, onBlur, onChange, minDate, maxDate } = props;
  const explain = (text: string): string | null => {
    const problem = typedDateProblem(text, { earliest: minDate, latest: maxDate });
    if (!problem) return null;
    const typed = formatDate(parseDate(text));
    if (problem.kind === 'tooLate') return t('common.dateTooLate', { date: typed, latest: formatDate(problem.latest) });
    if (problem.kind === 'tooEarly') return t('common.dateTooEarly', { date: typed, earliest: formatDate(problem.earliest) });
    return t('common.dateUnreadable', { text: text.trim(), example: formatDate(new Date()) });
  };
  return (
    <LocalizedDates>
      <DateInput
        valueFormat={(day) => formatDate(day)}
        dateParser={(text) => parseDate(text)}
        {...props}
        error={typedError ?? props.error}
        onChange={(value) => {
          setTypedError(null);
          onChange?.(value);
        }}
        onBlur={(event) => {
          setTypedError(explain(event.currentTarget.value));
          onBlur?.(event);
        }}
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
