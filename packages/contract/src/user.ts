import { z } from 'zod';
import { ROLES } from './ability.ts';
import { PASSWORD_MIN_LENGTH } from './constants.ts';
import { isCountryCode } from './countries.ts';
import { isoDateTime, listQuery, listResponse, MAX_RECORD_ID, organizationFilter, organizationRef, wholeNumberText } from './list.ts';

export const accessRole = z.enum(ROLES);

/** One line of text: no control characters (a NUL cannot even be stored in PostgreSQL). */
const SINGLE_LINE = /^[^\u0000-\u001f\u007f]*$/;
/** Multi-line text: line breaks and tabs, no other control characters. */
const MULTI_LINE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;
const text255 = z.string().trim().max(255).regex(SINGLE_LINE);
const optionalText = text255.nullish().transform((value) => (value ? value : null));

export const email = z.string().trim().toLowerCase().min(4).max(255).pipe(z.email());
export const password = z.string().min(PASSWORD_MIN_LENGTH).max(1024);

/** The editable fields of a user (spec section 3 and 5). */
export const userFields = z.object({
  email,
  firstName: text255.min(1),
  lastName: text255.min(1),
  company: optionalText,
  address: optionalText,
  address2: optionalText,
  zip: optionalText,
  city: optionalText,
  /** An ISO 3166-1 alpha-2 code of a real country (`XX` is refused), or none. */
  country: z
    .string()
    .trim()
    .toUpperCase()
    .refine(isCountryCode, 'validation.country')
    .nullish()
    .transform((value) => value ?? null),
  phone: optionalText,
  fax: optionalText,
  notes: z.string().max(10000).regex(MULTI_LINE).nullish().transform((value) => value ?? null),
  accessRole,
  optInEmail: z.boolean(),
});
export type UserFields = z.output<typeof userFields>;
export type UserFieldName = keyof UserFields;
export const USER_FIELD_NAMES = Object.keys(userFields.shape) as UserFieldName[];

/** A user as the API answers it: plain values without transforms, so that responses serialize. */
export const user = z.object({
  id: z.number().int(),
  email: z.string(),
  username: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  formattedName: z.string(),
  company: z.string().nullable(),
  address: z.string().nullable(),
  address2: z.string().nullable(),
  zip: z.string().nullable(),
  city: z.string().nullable(),
  country: z.string().nullable(),
  phone: z.string().nullable(),
  fax: z.string().nullable(),
  /** Administrators' notes about the person: left out of answers to anyone else. */
  notes: z.string().nullable().optional(),
  accessRole,
  optInEmail: z.boolean(),
  confirmed: z.boolean(),
  createdAt: isoDateTime,
  /** The organizations the account belongs to: only in the staff list (DESIGN.md section 6f). */
  organizations: z.array(organizationRef).optional(),
});
export type User = z.output<typeof user>;

export const userListQuery = listQuery(['id', 'email', 'firstName', 'lastName', 'company', 'accessRole', 'createdAt']).extend({
  accessRole: accessRole.optional(),
  /** The members of one organization. */
  organizationId: organizationFilter,
});
export type UserListQuery = z.output<typeof userListQuery>;
export const userList = listResponse(user);

/**
 * The display name: first and last name, with the company in brackets. An account that registered
 * by e-mail alone has no name yet; it is shown by its address (when given) until it fills one in.
 */
export function formatUserName(user: { firstName: string; lastName: string; company?: string | null; email?: string }): string {
  const name = `${user.firstName} ${user.lastName}`.trim() || user.company?.trim() || user.email || '';
  return user.company && name !== user.company ? `${name} (${user.company})` : name;
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

/**
 * `POST /users/confirm`: the id and token from the confirmation mail; an administrator confirms a
 * registration by id alone (spec section 4: "An administrator can confirm a registration manually").
 */
export const registrationConfirmation = z.object({
  id: z.union([z.number().int().positive().max(MAX_RECORD_ID), wholeNumberText(1, MAX_RECORD_ID)]),
  token: z.string().min(1).max(200).optional(),
});
export type RegistrationConfirmation = z.input<typeof registrationConfirmation>;

/** `POST /users/confirm/resend` and `POST /users/forgot-password`. */
export const emailRequest = z.object({ email });
export type EmailRequest = z.input<typeof emailRequest>;

/** `POST /users/reset-password`: the address and token from the mail, and the new password. */
export const passwordReset = z.object({
  email,
  password,
  token: z.string().min(1).max(200),
});
export type PasswordReset = z.input<typeof passwordReset>;

/** The reset form in the browser also asks for the confirmation (not sent). */
export const passwordResetForm = z
  .object({ password, password_confirm: z.string() })
  .refine((value) => value.password === value.password_confirm, { path: ['password_confirm'], message: 'validation.passwordMismatch' });
export type PasswordResetForm = z.input<typeof passwordResetForm>;

/** `POST /users/change-email`: the new address; called again with the token from the mail to confirm. */
export const emailChange = z.object({
  email,
  token: z.string().min(1).max(200).optional(),
});
export type EmailChange = z.input<typeof emailChange>;

/** What `POST /users/change-email` answers: pending until the token is confirmed, then complete. */
export const emailChangeResult = z.object({
  status: z.enum(['pending', 'complete']),
  email: z.string(),
});
export type EmailChangeResult = z.output<typeof emailChangeResult>;

/** `GET /users/change-email`: the own change of address still waiting for its link, if any. */
export const pendingEmailChange = z.object({
  pending: z.object({ email: z.string(), expiresAt: isoDateTime }).nullable(),
});
export type PendingEmailChange = z.output<typeof pendingEmailChange>;

/** `POST /users` (an administrator creates an account: confirmed, random password, no mail). */
export const userCreate = userFields.extend({
  accessRole: accessRole.default('USER'),
  optInEmail: z.boolean().default(false),
});
export type UserCreate = z.input<typeof userCreate>;

/** `PUT /users/{id}`: the fields given are changed; each changed field needs the update right on it. */
export const userUpdate = userFields.partial();
export type UserUpdate = z.input<typeof userUpdate>;

/** `GET /users/export/email-consent`: comma for most spreadsheets, semicolon where comma is the decimal mark. */
export const consentExportQuery = z.object({
  separator: z.enum(['comma', 'semicolon']).default('comma'),
});
