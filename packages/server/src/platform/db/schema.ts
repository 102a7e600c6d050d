/**
 * Table types for Kysely. Timestamps are ISO-8601 strings (`2026-01-31T12:00:00.000Z`) and dates
 * `YYYY-MM-DD` on both databases, so that one query code serves SQLite and PostgreSQL and a month
 * is `substr(x, 1, 7)` on both. Booleans are booleans in PostgreSQL and 0/1 in SQLite: read them
 * with `Boolean()`. JSON columns are text.
 */
import type { UsersTable, SessionsTable, UserTwoFactorTable, UserRecoveryCodesTable, LimitEventsTable, LoginDevicesTable, UserTokensTable, MailOutboxTable } from './schema/accounts.ts';
import type { SettingsTable, SettingFilesTable, ChangeLogTable, FeaturesTable, FeatureExpansionsTable, LicensePoliciesTable, ProductsTable, ProductFeaturesTable, ProductDownloadLinksTable, ReleasesTable, ReleaseArtifactsTable, ReleaseDownloadsTable } from './schema/catalogue.ts';
import type { OrganizationsTable, OrganizationMembersTable, OrganizationInvitationsTable, OrganizationSeatsTable, DeviceAuthorizationsTable, DesktopSignInsTable } from './schema/organizations.ts';
import type { TansTable, TanTagsTable, LicensesTable, LicenseMachinesTable, LicenseTrialsTable, SigningKeysTable, AnyLicLinksTable, FloatingSeatsTable, LicenseOveragesTable, InstanceLeasesTable, OfflineProofNoncesTable, LicenseLastSeenTable, StatisticsDeltasTable, StatisticsDailyTable, StatisticsTrialsTable, StatisticsMachinesTable, StatisticsMachineProductsTable, StatisticsUserProductsTable, LicenseOverageMonthsTable } from './schema/licensing.ts';
import type { WebhookOrdersTable, ApiTokensTable, WebhookEndpointsTable, WebhookEventsTable, WebhookDeliveriesTable, WebhookAttemptsTable, ShopPendingRefsTable, ShopPaymentRefsTable, ShopConnectionsTable, ShopMappingsTable, ShopEventsTable, ShopOrdersTable, ShopAddOnsTable } from './schema/integration.ts';
import type { SsoIdentitiesTable, SsoLoginsTable, SsoSecondFactorsTable, LicenseEventsTable } from './schema/sso.ts';

export type * from './schema/accounts.ts';
export type * from './schema/catalogue.ts';
export type * from './schema/licensing.ts';
export type * from './schema/integration.ts';
export type * from './schema/sso.ts';
export type * from './schema/organizations.ts';

export interface DB {
  users: UsersTable;
  sessions: SessionsTable;
  user_two_factor: UserTwoFactorTable;
  user_recovery_codes: UserRecoveryCodesTable;
  limit_events: LimitEventsTable;
  login_devices: LoginDevicesTable;
  settings: SettingsTable;
  change_log: ChangeLogTable;
  features: FeaturesTable;
  feature_expansions: FeatureExpansionsTable;
  license_policies: LicensePoliciesTable;
  products: ProductsTable;
  product_features: ProductFeaturesTable;
  product_download_links: ProductDownloadLinksTable;
  tans: TansTable;
  tan_tags: TanTagsTable;
  licenses: LicensesTable;
  license_machines: LicenseMachinesTable;
  license_trials: LicenseTrialsTable;
  user_tokens: UserTokensTable;
  mail_outbox: MailOutboxTable;
  setting_files: SettingFilesTable;
  signing_keys: SigningKeysTable;
  anylic_links: AnyLicLinksTable;
  floating_seats: FloatingSeatsTable;
  license_overages: LicenseOveragesTable;
  instance_leases: InstanceLeasesTable;
  offline_proof_nonces: OfflineProofNoncesTable;
  license_last_seen: LicenseLastSeenTable;
  webhook_orders: WebhookOrdersTable;
  statistics_deltas: StatisticsDeltasTable;
  statistics_daily: StatisticsDailyTable;
  statistics_trials: StatisticsTrialsTable;
  statistics_machines: StatisticsMachinesTable;
  statistics_machine_products: StatisticsMachineProductsTable;
  statistics_user_products: StatisticsUserProductsTable;
  license_overage_months: LicenseOverageMonthsTable;
  api_tokens: ApiTokensTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  shop_connections: ShopConnectionsTable;
  shop_mappings: ShopMappingsTable;
  shop_events: ShopEventsTable;
  shop_orders: ShopOrdersTable;
  shop_add_ons: ShopAddOnsTable;
  shop_payment_refs: ShopPaymentRefsTable;
  shop_pending_refs: ShopPendingRefsTable;
  sso_identities: SsoIdentitiesTable;
  sso_logins: SsoLoginsTable;
  sso_second_factors: SsoSecondFactorsTable;
  license_events: LicenseEventsTable;
  releases: ReleasesTable;
  release_artifacts: ReleaseArtifactsTable;
  release_downloads: ReleaseDownloadsTable;
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  organization_invitations: OrganizationInvitationsTable;
  organization_seats: OrganizationSeatsTable;
  device_authorizations: DeviceAuthorizationsTable;
  desktop_sign_ins: DesktopSignInsTable;
}
