import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { Action, SubjectName } from '@lm/contract';
import { withMoreStyles } from '../styles/load.ts';
import { loadChunk } from './version-check.ts';

/** What a route needs (spec section 2): a login, or an ability that implies one. */
export type Requirement = { login: true } | { ability: (params: Record<string, string | undefined>) => [Action, SubjectName] };

export interface AppRoute {
  path: string;
  page: LazyExoticComponent<ComponentType>;
  requires?: Requirement;
}

/**
 * Lazy pages; a chunk that fails or hangs raises the reload alert. Every page but the first screen
 * brings the styles of the components beyond it (styles/more.ts).
 */
function page(load: () => Promise<{ default: ComponentType }>, styles: 'first-screen' | 'more' = 'more') {
  return lazy(() => loadChunk(styles === 'more' ? () => withMoreStyles(load) : load));
}

const can = (action: Action, subject: SubjectName): Requirement => ({ ability: () => [action, subject] });
const login: Requirement = { login: true };

export const ROUTES: AppRoute[] = [
  // Signed in, it shows the licenses page, which brings the other styles itself.
  { path: '/', page: page(() => import('./HomePage.tsx'), 'first-screen') },
  { path: '/login', page: page(() => import('../features/auth/LoginPage.tsx')) },
  { path: '/help/:guide', page: page(() => import('../features/help/HelpPage.tsx')), requires: login },
  { path: '/forgot-password', page: page(() => import('../features/accounts/ForgotPasswordPage.tsx')) },
  { path: '/reset-password', page: page(() => import('../features/accounts/ResetPasswordPage.tsx')) },
  { path: '/register', page: page(() => import('../features/accounts/RegisterPage.tsx')) },
  { path: '/register/confirm', page: page(() => import('../features/accounts/RegisterConfirmPage.tsx')) },
  { path: '/account/settings', page: page(() => import('../features/accounts/AccountSettingsPage.tsx')), requires: login },
  { path: '/account/security', page: page(() => import('../features/security/SecurityPage.tsx')), requires: login },
  { path: '/account/change-email', page: page(() => import('../features/accounts/ChangeEmailPage.tsx')), requires: login },
  { path: '/account/licenses/:showOffline?', page: page(() => import('../features/licenses/MyLicensesPage.tsx')), requires: login },
  { path: '/users', page: page(() => import('../features/users/UserListPage.tsx')), requires: can('view-list', 'User') },
  { path: '/users/create', page: page(() => import('../features/users/UserCreatePage.tsx')), requires: can('create', 'User') },
  {
    path: '/users/:userId/licenses/:showOffline?',
    page: page(() => import('../features/licenses/UserLicensesPage.tsx')),
    requires: can('view-list', 'License'),
  },
  { path: '/products', page: page(() => import('../features/products/ProductListPage.tsx')), requires: can('view-list', 'Product') },
  { path: '/products/matrix', page: page(() => import('../features/products/ProductMatrixPage.tsx')), requires: can('view-list', 'Product') },
  { path: '/products/compare', page: page(() => import('../features/products/ProductComparePage.tsx')), requires: can('view-list', 'Product') },
  { path: '/products/create', page: page(() => import('../features/products/ProductCreatePage.tsx')), requires: can('create', 'Product') },
  {
    path: '/license-policies',
    page: page(() => import('../features/license-policies/LicensePolicyListPage.tsx')),
    requires: can('view-list', 'LicensePolicy'),
  },
  {
    path: '/license-policies/create',
    page: page(() => import('../features/license-policies/LicensePolicyCreatePage.tsx')),
    requires: can('create', 'LicensePolicy'),
  },
  { path: '/licenses', page: page(() => import('../features/licenses/LicenseSearchPage.tsx')), requires: can('view-list', 'License') },
  { path: '/tans', page: page(() => import('../features/tans/TanListPage.tsx')), requires: can('view-list', 'Tan') },
  { path: '/tans/create', page: page(() => import('../features/tans/TanCreatePage.tsx')), requires: can('create', 'Tan') },
  { path: '/features', page: page(() => import('../features/features/FeatureListPage.tsx')), requires: can('view-list', 'Feature') },
  { path: '/features/create', page: page(() => import('../features/features/FeatureCreatePage.tsx')), requires: can('create', 'Feature') },
  {
    path: '/tools/create-anylic',
    page: page(() => import('../features/anylic/CreateAnyLicPage.tsx')),
    requires: can('create-anylic-download', 'License'),
  },
  { path: '/statistics/:category?', page: page(() => import('../features/statistics/StatisticsPage.tsx')), requires: can('view-chart', 'Statistics') },
  { path: '/settings', page: page(() => import('../features/settings/SettingsPage.tsx')), requires: can('update', 'Setting') },
  {
    path: '/changes/:modelName',
    page: page(() => import('../features/changes/ChangeLogPage.tsx')),
    requires: { ability: (params) => ['view-change-log', (params.modelName ?? 'all') as SubjectName] },
  },
  { path: '/export', page: page(() => import('../features/users/ExportPage.tsx')), requires: can('view-export', 'Export') },
  // The integration API (issue 17)
  { path: '/account/offline', page: page(() => import('../features/offline-activation/OfflineActivationPage.tsx')), requires: login },
  { path: '/account/api-tokens', page: page(() => import('../features/api-tokens/ApiTokensPage.tsx')), requires: login },
  { path: '/tools/webhooks', page: page(() => import('../features/webhooks/WebhooksPage.tsx')), requires: can('view-list', 'WebhookEndpoint') },
  { path: '/tools/shop-connections', page: page(() => import('../features/shop/ShopConnectionsPage.tsx')), requires: can('update', 'Setting') },
  { path: '/tools/license-events', page: page(() => import('../features/license-events/LicenseEventsPage.tsx')), requires: can('view-list', 'License') },
  // Releases and downloads (issue 53)
  { path: '/releases', page: page(() => import('../features/releases/ReleasesPage.tsx')), requires: can('view-list', 'Release') },
  { path: '/account/downloads', page: page(() => import('../features/releases/DownloadsPage.tsx')), requires: login },
  // Organizations and desktop sign-in (issue 50)
  { path: '/organizations', page: page(() => import('../features/organizations/OrganizationsPage.tsx')), requires: login },
  { path: '/organizations/:organizationId', page: page(() => import('../features/organizations/OrganizationPage.tsx')), requires: login },
  { path: '/invitations/:token', page: page(() => import('../features/organizations/InvitationPage.tsx')) },
  { path: '/device', page: page(() => import('../features/organizations/DevicePage.tsx')), requires: login },
  { path: '/tools/shop-orders', page: page(() => import('../features/shop/ShopOrdersPage.tsx')), requires: can('update', 'Setting') },
];

/** Any other path. */
export const NotFoundPage = page(() => import('./NotFoundPage.tsx'));
