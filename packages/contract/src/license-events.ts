import { z } from 'zod';
import { isoDateTime, listQuery, listResponse, MAX_RECORD_ID, wholeNumberText } from './list.ts';

/**
 * Runtime events of licenses that are no change of a record (DESIGN.md section 6j): what support
 * needs to answer "why was I refused?".
 */
export const LICENSE_EVENT_TYPES = [
  /** The desktop protocol refused the machine's license (revoked, expired, suspended, upgraded, …): `code` says why. */
  'activation.refused',
  /** Every seat of a floating license was taken. */
  'seat.denied',
  /** A seat beyond the license's count, granted under its overage allowance. */
  'overage.granted',
  /** A floating seat's lease ran out without a renewal. */
  'lease.expired',
  /** The client reported its clock set back (on its next contact). */
  'clock.tampered',
  /** A machine released its seat (an offline or manual deactivation). */
  'offline.deactivated',
  /** A person signed in to the desktop software. */
  'desktop.signin',
] as const;
export type LicenseEventType = (typeof LICENSE_EVENT_TYPES)[number];

/** Which webhook event a runtime event is sent as (DESIGN.md section 6j); the others are kept but not sent. */
export const LICENSE_EVENT_WEBHOOKS = {
  'activation.refused': 'license.activation_refused',
  'seat.denied': 'seat.denied',
  'lease.expired': 'lease.expired',
  'clock.tampered': 'license.clock_tampered',
} as const satisfies Partial<Record<LicenseEventType, string>>;

export const licenseEvent = z.object({
  id: z.number().int(),
  type: z.enum(LICENSE_EVENT_TYPES),
  /** The error code of a refusal (ERR_NO_SEAT, ERR_LICENSE_EXPIRED, …), else null. */
  code: z.string().nullable(),
  machineId: z.string().nullable(),
  licenseId: z.number().int().nullable(),
  tanId: z.number().int().nullable(),
  ownerId: z.number().int().nullable(),
  /** How often the same event came again within a few seconds (a client retrying), folded into this one. */
  repeats: z.number().int(),
  at: isoDateTime,
});
export type LicenseEvent = z.output<typeof licenseEvent>;

export const LICENSE_EVENT_SORT_FIELDS = ['at', 'type'] as const;

const eventFilters = {
  type: z.enum(LICENSE_EVENT_TYPES).optional().describe('Only events of this type'),
  code: z.string().trim().max(60).optional().describe('Only events with this error code (ERR_NO_SEAT, …)'),
  machine: z.string().trim().max(200).optional().describe('Only events of this machine (its machine id)'),
  licenseId: wholeNumberText(1, MAX_RECORD_ID).optional().describe('Only events of this license'),
  tanId: wholeNumberText(1, MAX_RECORD_ID).optional().describe('Only events of licenses of this TAN'),
  from: isoDateTime.optional().describe('Only events at or after this time'),
  to: isoDateTime.optional().describe('Only events before this time'),
};

/** `GET /api/license-events` (staff): newest first unless sorted otherwise. */
export const licenseEventQuery = listQuery(LICENSE_EVENT_SORT_FIELDS).extend(eventFilters);
export type LicenseEventQuery = z.output<typeof licenseEventQuery>;

/** `GET /api/license-events.csv`: the same filters, every matching event (up to the export limit). */
export const licenseEventCsvQuery = z.object(eventFilters);
export type LicenseEventCsvQuery = z.output<typeof licenseEventCsvQuery>;

/** `GET /api/licenses/{id}/events`, `GET /api/tans/{id}/events`: a page of one license's or TAN's timeline. */
export const licenseTimelineQuery = listQuery(LICENSE_EVENT_SORT_FIELDS).extend({ type: eventFilters.type });
export type LicenseTimelineQuery = z.output<typeof licenseTimelineQuery>;

export const licenseEventList = listResponse(licenseEvent);
export type LicenseEventList = z.output<typeof licenseEventList>;
