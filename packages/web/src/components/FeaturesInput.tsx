import { useMemo, useRef, useState } from 'react';
import { Pill, TagsInput, Tooltip, type ComboboxItem, type OptionsFilter, type TagsInputProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { featureLabel, isValidFeatureName } from '@lm/contract/feature';
import { useFeatureCache } from '../lib/feature-cache.ts';
import { currentLocale } from '../lib/i18n.ts';

const SEPARATORS = [',', ' ', ';'];

/** The suggestions containing the typed text: the name itself first, then names starting with it. */
const bestMatchesFirst: OptionsFilter = ({ options, search }) => {
  const typed = search.trim().toLowerCase();
  const rank = (option: ComboboxItem) => {
    const name = option.value.toLowerCase();
    return name === typed ? 0 : name.startsWith(typed) ? 1 : 2;
  };
  return (options as ComboboxItem[]).filter((option) => option.value.toLowerCase().includes(typed)).sort((a, b) => rank(a) - rank(b));
};

interface FeaturesInputProps extends Omit<TagsInputProps, 'data' | 'value' | 'onChange'> {
  value?: string[];
  onChange?(value: string[]): void;
  /** Names not to offer (a feature cannot expand to itself). */
  exclude?: string[];
}

/**
 * Feature names as tags (spec section 5): only letters, digits, colon, slash, underscore and dash.
 * A name with other characters is not taken and not silently changed: it stays typed, with a
 * message that says which characters are allowed. Names not in the feature cache are marked invalid.
 */
export function FeaturesInput({ value = [], onChange = () => {}, exclude = [], error, ...props }: FeaturesInputProps) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  /** A refused name stays in the input for correcting (the input empties itself after a tag). */
  const refused = useRef<string | null>(null);
  const { data: features, isSuccess } = useFeatureCache();
  const locale = currentLocale();
  const known = useMemo(() => new Map((features ?? []).map((feature) => [feature.name, feature])), [features]);
  const excluded = exclude.join('\n');
  const data = useMemo(() => {
    const skip = new Set(excluded.split('\n'));
    return (features ?? []).filter((feature) => !skip.has(feature.name)).map((feature) => ({ value: feature.name, label: feature.name }));
  }, [features, excluded]);
  const unknown = isSuccess ? value.filter((name) => !known.has(name)) : [];
  const typedWrong = search.trim() && !isValidFeatureName(search.trim()) ? search.trim() : null;
  const ownError = typedWrong
    ? t('validation.featureTagChars', { tag: typedWrong })
    : unknown.length
      ? t('catalogue.featuresInput.unknown', { names: unknown.join(', ') })
      : undefined;

  return (
    <TagsInput
      {...props}
      data={data}
      value={value}
      onChange={(names) => {
        const trimmed = names.map((name) => name.trim()).filter(Boolean);
        // Mantine empties the typed text around this call (before or after it, by event): either way it comes back.
        refused.current = trimmed.find((name) => !isValidFeatureName(name)) ?? null;
        if (refused.current) setSearch(refused.current);
        onChange(trimmed.filter(isValidFeatureName));
      }}
      searchValue={search}
      onSearchChange={(typed) => {
        setSearch(typed === '' && refused.current ? refused.current : typed);
        refused.current = null;
      }}
      splitChars={SEPARATORS}
      // Enter takes the best suggestion (the name typed in full, else the first that starts with it):
      // a name that is no feature would only be marked unknown. With no suggestion, Enter takes the text.
      filter={bestMatchesFirst}
      selectFirstOptionOnChange
      // Feature names are case-sensitive: PDF and pdf are two features.
      isDuplicate={(name, current) => current.includes(name)}
      error={error || ownError}
      description={props.description ?? t('catalogue.featuresInput.hint')}
      renderOption={({ option }) => {
        const feature = known.get(option.value);
        const label = feature ? featureLabel(feature, locale) : option.value;
        return label === option.value ? option.value : `${option.value} — ${label}`;
      }}
      renderPill={({ value: name, onRemove }) => {
        const invalid = isSuccess && name !== undefined && !known.has(name);
        return (
          <Tooltip label={t('catalogue.featuresInput.unknownOne')} disabled={!invalid} withinPortal>
            <Pill
              withRemoveButton
              onRemove={onRemove}
              data-invalid={invalid || undefined}
              aria-invalid={invalid || undefined}
              styles={invalid ? { root: { backgroundColor: 'var(--mantine-color-red-1)', color: 'var(--mantine-color-red-8)', textDecoration: 'line-through wavy' } } : undefined}
            >
              {name}
            </Pill>
          </Tooltip>
        );
      }}
    />
  );
}
