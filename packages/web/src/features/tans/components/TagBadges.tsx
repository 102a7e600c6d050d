import { Badge, Group, Menu } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** A tag badge that shrinks, ending with "…", when the cell is narrow (its title has it whole). */
const SHRINKING_TAG = { cursor: 'pointer', border: 0, minWidth: 0, display: 'block', whiteSpace: 'nowrap' } as const;

/**
 * A TAN's tags in its row (issue 49): the first whole as far as the column allows, the others behind
 * "+N", a menu of them; each filters the list by its tag. Three tags in a narrow column no longer
 * shrink to three stubs of one letter each.
 */
export function TagBadges({ tags, onChoose }: { tags: readonly string[]; onChoose(tag: string): void }) {
  const { t } = useTranslation();
  const [first, ...rest] = tags;
  if (first === undefined) return null;
  return (
    <Group gap={4} wrap="nowrap">
      <Badge component="button" type="button" variant="light" size="sm" tt="none" style={SHRINKING_TAG} title={first} onClick={() => onChoose(first)}>
        {first}
      </Badge>
      {rest.length > 0 && (
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <Badge component="button" type="button" variant="outline" size="sm" tt="none" style={{ cursor: 'pointer', flexShrink: 0 }} title={rest.join(', ')} aria-label={t('tans.moreTags', { count: rest.length, tags: rest.join(', ') })}>
              +{rest.length}
            </Badge>
          </Menu.Target>
          <Menu.Dropdown>
            {rest.map((tag) => (
              <Menu.Item key={tag} onClick={() => onChoose(tag)}>
                {tag}
              </Menu.Item>
            ))}
          </Menu.Dropdown>
        </Menu>
      )}
    </Group>
  );
}
