import type { Action, AppAbility, SubjectName } from '@lm/contract';

/**
 * Which records of a subject a caller may list, read from the CASL rules themselves so that the list
 * queries follow the permission matrix: 'all', or the rule conditions (OR-ed), none meaning nothing.
 */
export type ListScope = 'all' | Record<string, unknown>[];

export function listScope(ability: AppAbility, action: Action, subject: Exclude<SubjectName, 'all'>): ListScope {
  const conditions: Record<string, unknown>[] = [];
  for (const rule of ability.rulesFor(action, subject)) {
    if (rule.inverted) continue;
    if (!rule.conditions) return 'all';
    conditions.push(rule.conditions as Record<string, unknown>);
  }
  return conditions;
}

/** The one condition value the repos understand, e.g. `{ distributorId: 7 }` → 7 (null when absent). */
export function scopedIds(scope: ListScope, key: string): number[] {
  if (scope === 'all') return [];
  return scope.flatMap((condition) => (typeof condition[key] === 'number' ? [condition[key] as number] : []));
}
