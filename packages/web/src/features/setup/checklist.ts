import { setupComplete, type SetupStatus } from '@lm/contract';

export interface ChecklistStep {
  /** The status field that says it is done. */
  done: keyof SetupStatus;
  /** Its text under `setup.steps.<key>`. */
  key: string;
  /** Where it is done in the app; none for server configuration. */
  to?: string;
  optional?: boolean;
}

/** The first-run steps, in the order a new installation needs them (issue 38). */
export const CHECKLIST_STEPS: ChecklistStep[] = [
  { done: 'hasProduct', key: 'product', to: '/products/create' },
  { done: 'hasOwnPolicy', key: 'policy', to: '/license-policies/create', optional: true },
  { done: 'hasTan', key: 'tan', to: '/tans/create' },
  { done: 'mailSenderSet', key: 'mail' },
  { done: 'hasDistributor', key: 'distributor', to: '/users/create' },
];

const dismissedKey = (userId: number) => `firstRunChecklistDismissed:${userId}`;

export function checklistDismissed(storage: Pick<Storage, 'getItem'>, userId: number): boolean {
  return storage.getItem(dismissedKey(userId)) === 'yes';
}

export function dismissChecklist(storage: Pick<Storage, 'setItem'>, userId: number): void {
  storage.setItem(dismissedKey(userId), 'yes');
}

/** Whether the checklist shows: not once every required step is done, nor after the person hid it. */
export function checklistShown(status: SetupStatus | undefined, dismissed: boolean): boolean {
  return Boolean(status) && !dismissed && !setupComplete(status!);
}

/** How many of the required steps are done, of how many. */
export function checklistProgress(status: SetupStatus): { done: number; of: number } {
  const required = CHECKLIST_STEPS.filter((step) => !step.optional);
  return { done: required.filter((step) => status[step.done]).length, of: required.length };
}
