import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../platform/context.ts';
import { anyLicRoutes } from './anylic/routes.ts';
import { apiTokenRoutes } from './api-tokens/routes.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import { changeLogRoutes } from './changes/routes.ts';
import { clientErrorRoutes } from './client-errors/routes.ts';
import { entitlementRoutes } from './entitlements/routes.ts';
import { featureRoutes } from './features/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { licenseRoutes } from './licenses/routes.ts';
import { licenseEventRoutes } from './license-events/routes.ts';
import { licenseFileRoutes } from './license-files/routes.ts';
import { licensePolicyRoutes } from './license-policies/routes.ts';
import { offlineLicenseRoutes } from './offline-licenses/routes.ts';
import { orderWebhookRoutes } from './orders/routes.ts';
import { productRoutes } from './products/routes.ts';
import { sessionRoutes } from './session/routes.ts';
import { ssoRoutes } from './sso/routes.ts';
import { settingsRoutes } from './settings/routes.ts';
import { setupRoutes } from './setup/routes.ts';
import { statisticsRoutes } from './statistics/routes.ts';
import { tanRoutes } from './tans/routes.ts';
import { twoFactorRoutes } from './two-factor/routes.ts';
import { accountRoutes } from './users/account-routes.ts';
import { usersRoutes } from './users/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { shopConnectionRoutes, shopWebhookRoutes } from './shop/routes.ts';
import { releaseRoutes } from './releases/routes.ts';
import { organizationRoutes } from './organizations/routes.ts';
import { deviceSignInRoutes } from './device-sign-in/routes.ts';

/** Every module's routes of the web app and the integration API, mounted under /api (the desktop protocol apart: app.ts). */
export function apiModules(ctx: AppContext): FastifyPluginAsyncZod[] {
  return [
    healthRoutes(ctx),
    sessionRoutes(ctx),
    ssoRoutes(ctx),
    settingsRoutes(ctx),
    setupRoutes(ctx),
    featureRoutes(ctx),
    licensePolicyRoutes(ctx),
    productRoutes(ctx),
    clientErrorRoutes(),
    tanRoutes(ctx),
    licenseRoutes(ctx),
    licenseEventRoutes(ctx),
    entitlementRoutes(ctx),
    offlineLicenseRoutes(ctx),
    accountRoutes(ctx),
    twoFactorRoutes(ctx),
    usersRoutes(ctx),
    changeLogRoutes(ctx),
    statisticsRoutes(ctx),
    dashboardRoutes(ctx),
    orderWebhookRoutes(ctx),
    licenseFileRoutes(ctx),
    anyLicRoutes(ctx),
    apiTokenRoutes(ctx),
    webhookRoutes(ctx),
    shopConnectionRoutes(ctx),
    shopWebhookRoutes(ctx),
    releaseRoutes(ctx),
    organizationRoutes(ctx),
    deviceSignInRoutes(ctx),
  ];
}
