import type { ListResult, User } from '@lm/contract';

/** How an account reads in the select: its name, and its address when the name is not the address. */
export function userOptionLabel(user: Pick<User, 'formattedName' | 'email'>): string {
  return user.formattedName && user.formattedName !== user.email ? `${user.formattedName} · ${user.email}` : user.email;
}

/** The input shows the chosen account's label; only what the user typed is a search. */
export function searchTerm(inputText: string, selectedLabel: string): string {
  return inputText === selectedLabel ? '' : inputText.trim();
}

/** The offset of the next page, or undefined when every match is loaded. */
export function nextPageOffset(last: ListResult<unknown>, all: ListResult<unknown>[]): number | undefined {
  const loaded = all.reduce((count, page) => count + page.items.length, 0);
  return loaded < last.totalCount && last.items.length > 0 ? loaded : undefined;
}

/** The options: the selected account first (it may lie on a page not loaded), then every loaded one once. */
export function selectOptions(selected: User | undefined, pages: ListResult<User>[]): { options: { value: number; label: string }[]; byId: Map<number, User> } {
  const byId = new Map<number, User>();
  if (selected) byId.set(selected.id, selected);
  for (const page of pages) for (const user of page.items) byId.set(user.id, user);
  return { options: [...byId.values()].map((user) => ({ value: user.id, label: userOptionLabel(user) })), byId };
}
