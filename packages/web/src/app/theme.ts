/**
 * The Mantine theme, with colors that meet WCAG 2.2 AA contrast (4.5:1 for text): Mantine's
 * defaults put white text on light blue (3.6:1), grey secondary text on the page (3.2:1) and white
 * on yellow (1.9:1). Rather than silence the checks, every color role is darkened just enough.
 */
import { createTheme, darken, DEFAULT_THEME, luminance, mergeThemeOverrides, type CSSVariablesResolver } from '@mantine/core';

const AA = 4.5;
const contrast = (a: string, b: string) => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
};

/** The color, darkened in small steps until it reads on the background. */
function readable(color: string, background: string): string {
  let result = color;
  for (let amount = 0.05; contrast(result, background) < AA && amount < 1; amount += 0.05) result = darken(color, amount);
  return result;
}

/** The page background behind most text (papers are white, which reads better still). */
const PAGE = DEFAULT_THEME.colors.gray[0];

/** The defaults of the fields with an option list: the list itself scrolls (Mantine's default height). */
const comboboxList = { defaultProps: { withScrollArea: false }, styles: { options: { maxHeight: 220, overflowY: 'auto' } } } as const;

export const theme = createTheme({
  primaryColor: 'blue',
  // White on blue-8 is 5:1; the default blue-6 was 3.6:1.
  primaryShade: { light: 8, dark: 8 },
  // Filled badges and buttons of light colors (yellow, green) get dark text: black or white, whichever reads.
  autoContrast: true,
  luminanceThreshold: 0.179,
  defaultRadius: 'md',
  // A person whose system asks for less motion (prefers-reduced-motion) gets dialogs, menus, option
  // lists and switches without fading or sliding (WCAG 2.3.3).
  respectReducedMotion: true,
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  components: {
    // A number below the minimum stays as typed and the form says what is allowed ("Enter 1 or
    // more"); Mantine would otherwise turn 0 into 1 on blur without a word. A plain object, not
    // NumberInput.extend(): importing NumberInput here would put it into the first load.
    NumberInput: { defaultProps: { clampBehavior: 'none' } },
    // A menu holds only menu items: Mantine's focus placeholder (a presentational div with a
    // tabindex) made axe report the open account menu as critical (aria-required-children). Without
    // it, opening a menu focuses its first item, as the WAI-ARIA menu button pattern has it.
    Menu: { defaultProps: { withInitialFocusPlaceholder: false } },
    // The list of a select scrolls itself rather than through Mantine's scroll area, whose viewport
    // inside the list axe reports as a scroll region the keyboard cannot reach (serious,
    // scrollable-region-focusable): the keyboard is in the field and its arrow keys scroll the
    // list, which axe sees once the list the field controls is the part that scrolls.
    // A value or hint longer than its field ends in "…" rather than being cut off mid-letter (a
    // distributor's name and e-mail in a TAN's field, a long search hint on a phone). Every field
    // (TextInput, Select, …) is built on Input, so its styles reach them all.
    Input: { styles: { input: { textOverflow: 'ellipsis' } } },
    Select: comboboxList,
    MultiSelect: comboboxList,
    TagsInput: comboboxList,
    Autocomplete: comboboxList,
    // A badge keeps its whole word in a narrow table column ("Aktiv", not "AKT…"): the badge is as
    // wide as its word, and the word is not cut off for the fraction of a pixel that rounding takes.
    Badge: { styles: { root: { minWidth: 'fit-content' }, label: { overflow: 'visible' } } },
    // A segmented control stays within its box, and a choice too long for a phone wraps ("Tous les comptes").
    // Each choice is as wide as its label where there is room (Mantine's equal shares wrapped
    // "Mehrere TANs" beside a short "Eine TAN" even on a laptop), and shrinks only where there is not.
    SegmentedControl: { styles: { root: { maxWidth: '100%' }, control: { flex: '1 1 auto', minWidth: 0 }, label: { whiteSpace: 'normal', overflow: 'visible' } } },
    // A label too long for a phone's width wraps onto a second line instead of being cut off
    // ("Configurer la connexion en deux ét"): the button grows from its usual height, which the
    // padding keeps for a label of one line.
    Button: {
      styles: {
        root: { height: 'auto', minHeight: 'var(--button-height)', paddingBlock: 'calc((var(--button-height) - 1.25em - 2px) / 2)' },
        label: { whiteSpace: 'normal', lineHeight: 1.25, overflow: 'visible' },
      },
    },
  },
});

/** Mantine's built-in names of icon buttons, in the interface language (Mantine's own are English). */
export interface BuiltInLabels {
  close: string;
  togglePassword: string;
  nextMonth: string;
  previousMonth: string;
  nextYear: string;
  previousYear: string;
  nextDecade: string;
  previousDecade: string;
  /** The × of a field that can be emptied (selects, date fields). */
  clear: string;
}

/** The keys of BuiltInLabels' texts in the locale files. */
export const BUILT_IN_LABEL_KEYS: Record<keyof BuiltInLabels, string> = {
  close: 'common.close',
  togglePassword: 'builtIn.togglePassword',
  nextMonth: 'builtIn.nextMonth',
  previousMonth: 'builtIn.previousMonth',
  nextYear: 'builtIn.nextYear',
  previousYear: 'builtIn.previousYear',
  nextDecade: 'builtIn.nextDecade',
  previousDecade: 'builtIn.previousDecade',
  clear: 'builtIn.clear',
};

/**
 * The theme in the interface language: the close buttons of dialogs and toasts, the password
 * fields' show/hide button and the date pickers' arrows are icons, and need a name a person reads.
 */
export function themeFor(labels: BuiltInLabels) {
  const closeButtonProps = { 'aria-label': labels.close };
  const dateAriaLabels = {
    nextMonth: labels.nextMonth,
    previousMonth: labels.previousMonth,
    nextYear: labels.nextYear,
    previousYear: labels.previousYear,
    nextDecade: labels.nextDecade,
    previousDecade: labels.previousDecade,
  };
  // Without a name the × of a clearable field is a button axe reports as critical (button-name).
  const clearButtonProps = { 'aria-label': labels.clear };
  const clearable = { defaultProps: { clearButtonProps } };
  // The month and year above a calendar keep their visible text as their name ("December 2025"; a
  // name without it is axe's label-content-name-mismatch, serious). Weekends are not set apart in
  // red: red-6 on the blue of a chosen range is 2.7:1 (color-contrast, serious).
  const dates = { defaultProps: { ariaLabels: dateAriaLabels, clearButtonProps, weekendDays: [] } };
  return mergeThemeOverrides(
    theme,
    createTheme({
      // Plain objects, not Modal.extend(): importing Modal here would put it into the first load.
      components: {
        Modal: { defaultProps: { closeButtonProps } },
        Notification: { defaultProps: { closeButtonProps } },
        PasswordInput: { defaultProps: { visibilityToggleButtonProps: { 'aria-label': labels.togglePassword } } },
        Select: clearable,
        MultiSelect: clearable,
        TagsInput: clearable,
        Autocomplete: clearable,
        DateInput: dates,
        DatePickerInput: dates,
        DatePicker: dates,
      },
    }),
  );
}

export const cssVariablesResolver: CSSVariablesResolver = (resolved) => {
  const light: Record<string, string> = {
    '--mantine-color-dimmed': readable(resolved.colors.gray[6], PAGE),
    // Inputs are white; their placeholders are text too (a date picker shows one in a span).
    '--mantine-color-placeholder': readable(resolved.colors.gray[6], resolved.white),
    // Error messages under fields (red-6 on white is 3.3:1).
    '--mantine-color-error': readable(resolved.colors.red[8], PAGE),
  };
  for (const [name, shades] of Object.entries(resolved.colors)) {
    // Text, outlines and anchors in a color, on the page; the light variant's text on its tinted background.
    const onPage = readable(shades[8], PAGE);
    light[`--mantine-color-${name}-text`] = onPage;
    light[`--mantine-color-${name}-outline`] = onPage;
    light[`--mantine-color-${name}-light-color`] = readable(shades[9], shades[1]);
  }
  return { variables: {}, light, dark: {} };
};
