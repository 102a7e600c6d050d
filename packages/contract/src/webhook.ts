import { z } from 'zod';
import type { Role } from './ability.ts';
import { isoDateTime, listQuery, listResponse, updateOf } from './list.ts';

/** The events an endpoint can subscribe to (DESIGN.md section 6b). */
export const WEBHOOK_EVENT_TYPES = [
  'license.created',
  'license.updated',
  'license.deleted',
  /** A floating seat granted beyond the TAN's count (a soft limit, DESIGN.md section 6g). */
  'license.overage',
  'tan.created',
  'tan.updated',
  'user.created',
  'user.updated',
  'user.deleted',
  'order.processed',
  // Runtime events of licenses (DESIGN.md section 6j, license-events.ts).
  'license.activation_refused',
  'seat.denied',
  'lease.expired',
  'license.clock_tampered',
  'release.published',
  'organization.member_added',
  'organization.member_removed',
  'seat.assigned',
  'seat.unassigned',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * The events an account's endpoints can receive: what its rules let it view. A distributor sees its
 * TANs, their licenses and its own account, never other accounts or the shop's orders.
 */
export function webhookEventsFor(role: Role): readonly WebhookEventType[] {
  return role === 'ADMIN' ? WEBHOOK_EVENT_TYPES : DISTRIBUTOR_WEBHOOK_EVENTS;
}
const DISTRIBUTOR_WEBHOOK_EVENTS: readonly WebhookEventType[] = [
  'license.created',
  'license.updated',
  'license.deleted',
  'tan.created',
  'tan.updated',
  'user.updated',
  'license.activation_refused',
  'seat.denied',
  'lease.expired',
  'license.clock_tampered',
];
/** What "Send test event" delivers; no endpoint subscribes to it. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Secrets are `whsec_` and the base64 of their key bytes, as the Standard Webhooks libraries read them. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** After a rotation, deliveries carry a signature with the old secret as well for this long. */
export const WEBHOOK_OLD_SECRET_HOURS = 24;
export const WEBHOOK_ENDPOINTS_MAX = 50;


const webhookUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    } catch {
      return false;
    }
    // Only http and https: anything else (file:, gopher:, javascript:) is refused.
  }, 'validation.url');

export const webhookEndpointFields = z.object({
  url: webhookUrl,
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES))
    .min(1)
    .transform((events) => WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type))),
  enabled: z.boolean().default(true),
  description: z.string().trim().max(500).nullable().default(null),
});
export type WebhookEndpointFields = z.output<typeof webhookEndpointFields>;
export const webhookEndpointUpdate = updateOf(webhookEndpointFields);
export type WebhookEndpointUpdate = z.output<typeof webhookEndpointUpdate>;

export const webhookEndpoint = z.object({
  id: z.number().int(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  enabled: z.boolean(),
  description: z.string().nullable(),
  ownerId: z.number().int(),
  ownerName: z.string(),
  /** Why the server switched it off (after 3 days of failures); null when it is on or a person switched it off. */
  disabledReason: z.string().nullable(),
  /** Since when every delivery has failed; null while deliveries get through. */
  failingSince: isoDateTime.nullable(),
  pendingCount: z.number().int(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
export type WebhookEndpoint = z.output<typeof webhookEndpoint>;

/** The answer of the creation and of a rotation: the only time the secret is shown. */
export const webhookEndpointWithSecret = webhookEndpoint.extend({ secret: z.string() });
export type WebhookEndpointWithSecret = z.output<typeof webhookEndpointWithSecret>;

export const webhookEndpointListQuery = listQuery(['url', 'createdAt']);
export const webhookEndpointList = listResponse(webhookEndpoint);

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/**
 * Why an attempt failed, as a code that clients word in the reader's language:
 * - `invalidUrl`: the endpoint's URL cannot be parsed;
 * - `privateAddress`: its host is (or resolves to) an address that is not public, refused by the server's rules;
 * - `dnsFailed`: its host name does not resolve;
 * - `connectionRefused`: nothing listens at the address and port;
 * - `connectionReset`: the receiver (or something between) dropped the connection;
 * - `unreachable`: no route to the receiver's host or network;
 * - `tlsFailed`: the HTTPS connection could not be secured (certificate expired, self-signed, for another name…);
 * - `timeout`: no complete answer within the time limit (`reasonParams.seconds`);
 * - `httpStatus`: the receiver answered with a status other than 2xx (`reasonParams.status`);
 * - `other`: anything else, and attempts logged before the codes existed: `error` tells more.
 */
export const WEBHOOK_FAILURE_REASONS = [
  'invalidUrl',
  'privateAddress',
  'dnsFailed',
  'connectionRefused',
  'connectionReset',
  'unreachable',
  'tlsFailed',
  'timeout',
  'httpStatus',
  'other',
] as const;
export type WebhookFailureReason = (typeof WEBHOOK_FAILURE_REASONS)[number];

export const webhookAttempt = z.object({
  attemptedAt: isoDateTime,
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  /** The start of the receiver's answer (at most 1000 characters). */
  response: z.string().nullable(),
  /** Why it failed, as a code (see WEBHOOK_FAILURE_REASONS); null for a delivered attempt. */
  reason: z.enum(WEBHOOK_FAILURE_REASONS).nullable(),
  /** What goes with the reason: the receiver's `status` for `httpStatus`, the `seconds` waited for `timeout`. */
  reasonParams: z.object({ status: z.number().int().optional(), seconds: z.number().int().optional() }),
  /** The technical detail of a failure, in English (the network error, the status answered), for operators; null for a delivered attempt. */
  error: z.string().nullable(),
});
export type WebhookAttempt = z.output<typeof webhookAttempt>;

export const webhookDelivery = z.object({
  id: z.number().int(),
  endpointId: z.number().int(),
  /** The event's id: the `webhook-id` header, the same for every attempt and redelivery. */
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  createdAt: isoDateTime,
  nextAttemptAt: isoDateTime.nullable(),
  /** The event's data was erased with the account it concerned: it can no longer be redelivered. */
  erased: z.boolean(),
  attempts: z.array(webhookAttempt),
});
export type WebhookDelivery = z.output<typeof webhookDelivery>;

export const webhookDeliveryListQuery = listQuery(['createdAt']).extend({ status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional() });
export const webhookDeliveryList = listResponse(webhookDelivery);
