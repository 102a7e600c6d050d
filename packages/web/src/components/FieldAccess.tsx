import { Tooltip } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { asSubject, type Action, type SubjectName } from '@lm/contract';
import { useAbility } from '../lib/auth.ts';
import classes from './FieldAccess.module.css';

export interface FieldAccess {
  allowed: boolean;
  /** Props for a Mantine input: disabled, hatched and locked when the rules deny the field. */
  inputProps: {
    disabled?: boolean;
    classNames?: { input: string };
    rightSection?: React.ReactNode;
    'data-forbidden'?: boolean;
    title?: string;
  };
}

/**
 * Whether the rules let the user change each field of a record (spec section 5: "Form fields the
 * user may not update are disabled and styled as forbidden").
 */
export function useFieldAccess(action: Action, subject: Exclude<SubjectName, 'all'>, record?: Record<string, unknown>): (field: string) => FieldAccess {
  const ability = useAbility();
  const { t } = useTranslation();
  return (field) => {
    const allowed = ability.can(action, record ? asSubject(subject, record) : subject, field);
    if (allowed) return { allowed, inputProps: {} };
    const label = t('accounts.forbiddenField');
    return {
      allowed,
      inputProps: {
        disabled: true,
        classNames: { input: classes.forbidden },
        'data-forbidden': true,
        title: label,
        rightSection: (
          <Tooltip label={label}>
            <IconLock size={16} aria-label={label} />
          </Tooltip>
        ),
      },
    };
  };
}
