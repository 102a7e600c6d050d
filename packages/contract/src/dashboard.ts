/**
 * The staff home (`GET /api/dashboard`, DESIGN.md section 5): what needs an administrator or a
 * distributor today, each figure with the path of the list it summarises (filtered to it). A
 * distributor's figures count only the TANs it distributes; a figure it may not see is null.
 */
import { z } from 'zod';
import { isoDate } from './list.ts';

/** The days the activity figures look back over, today included. */
export const DASHBOARD_DAYS = 7;
/** Subscriptions (TANs with a valid-until day) ending within this many days count as ending soon. */
export const DASHBOARD_ENDING_DAYS = 14;
/**
 * A TAN is near its count when it has more than one license and at least 4 in 5 of them are
 * activated (a single-license TAN that was used is simply used, not a concern).
 */
export const NEAR_COUNT_SHARE = { activated: 4, of: 5 } as const;

/** The TAN list's attention filters the home links to (`GET /api/tans?state=…`). */
export const TAN_ATTENTION_STATES = ['suspended', 'ending', 'nearCount'] as const;
export type TanAttentionState = (typeof TAN_ATTENTION_STATES)[number];

export const dashboardTile = z.object({
  count: z.number().int().describe('How many there are'),
  link: z.string().describe('The web app path of the list filtered to them'),
});
export type DashboardTile = z.output<typeof dashboardTile>;

export const dashboardDay = z.object({ day: isoDate, count: z.number().int() });

export const dashboard = z.object({
  /** The first day of the activity figures (UTC), DASHBOARD_DAYS before tomorrow. */
  since: isoDate,
  /** TAN licenses activated per day since `since` (a distributor's: of its TANs), with their sum and link. */
  activations: dashboardTile.extend({ days: z.array(dashboardDay) }),
  /** Machines whose software last contacted the server on each day since `since` (administrators only). */
  refreshes: dashboardTile.extend({ days: z.array(dashboardDay) }).nullable(),
  /** TANs (not revoked) whose subscription's valid-until day is within DASHBOARD_ENDING_DAYS from today. */
  subscriptionsEnding: dashboardTile,
  /** TANs (not revoked) suspended, e.g. an unpaid subscription. */
  suspended: dashboardTile,
  /** TANs (not revoked) near their license count (NEAR_COUNT_SHARE). */
  tansNearCount: dashboardTile,
  /** Shop events that failed and wait for a fix and a replay (administrators only). */
  failedShopEvents: dashboardTile.nullable(),
  /** The caller's own webhook endpoints whose deliveries fail or that were disabled after failing. */
  failingWebhooks: dashboardTile,
  /** Activations refused since `since`, from the runtime events; null while the installation keeps none. */
  refusals: dashboardTile.nullable(),
});
export type Dashboard = z.output<typeof dashboard>;
