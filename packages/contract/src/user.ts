import { z } from 'zod';
import { ROLES } from './ability.ts';
import { PASSWORD_MIN_LENGTH } from './constants.ts';
import { isoDateTime, listQuery, listResponse } from './list.ts';

export const accessRole = z.enum(ROLES);

const text255 = z.string().trim().max(255);
const optionalText = text255.nullish().transform((value) => (value ? value : null));

export const email = z.string().trim().toLowerCase().min(4).max(255).pipe(z.email());
export const password = z.string().min(PASSWORD_MIN_LENGTH).max(1024);

/** The editable fields of a user (spec section 3 and 5). */
export const userFields = z.object({
  email,
  firstName: z.string().trim().min(1).max(255),
  lastName: z.string().trim().min(1).max(255),
  company: optionalText,
  address: optionalText,
  address2: optionalText,
  zip: optionalText,
  city: optionalText,
  country: z.string().trim().length(2).toUpperCase().nullish().transform((value) => value ?? null),
  phone: optionalText,
  fax: optionalText,
  notes: z.string().max(10000).nullish().transform((value) => value ?? null),
  accessRole,
  optInEmail: z.boolean(),
});
export type UserFields = z.output<typeof userFields>;

export const user = userFields.extend({
  id: z.number().int(),
  username: z.string(),
  formattedName: z.string(),
  confirmed: z.boolean(),
  createdAt: isoDateTime,
});
export type User = z.output<typeof user>;

export const userListQuery = listQuery(['id', 'email', 'firstName', 'lastName', 'company', 'accessRole', 'createdAt']).extend({
  accessRole: accessRole.optional(),
});
export const userList = listResponse(user);

export function formatUserName(user: { firstName: string; lastName: string; company?: string | null }): string {
  const name = `${user.firstName} ${user.lastName}`.trim();
  return user.company ? `${name} (${user.company})` : name;
}

/** Registration (spec section 3 and 5): the confirmation must equal the password. */
export const registration = z
  .object({
    email,
    password,
    password_confirm: z.string(),
    optInEmail: z.boolean().default(false),
  })
  .refine((value) => value.password === value.password_confirm, { path: ['password_confirm'], message: 'validation.passwordMismatch' });
export type Registration = z.input<typeof registration>;
