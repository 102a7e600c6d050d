/**
 * The `operationId` of every API operation, keyed by method and path as the OpenAPI document writes
 * them (below the `/api` server). Generated clients name their functions and types after these, so
 * they are part of the API: renaming one breaks every client generated from an older document. A
 * route may also set `schema.operationId` itself, which wins; a route with neither fails
 * openapi-clients.test.ts (one table, so parallel changes to the route files do not collide).
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /health': 'getHealth',

  'POST /session': 'login',
  'GET /session': 'getSession',
  'DELETE /session': 'logout',
  'GET /account/sessions': 'listAccountSessions',
  'DELETE /account/sessions': 'endOtherAccountSessions',
  'DELETE /account/sessions/{id}': 'endAccountSession',
  'PUT /account/password': 'changePassword',
  'GET /account/two-factor': 'getTwoFactorStatus',
  'POST /account/two-factor': 'startTwoFactorSetup',
  'DELETE /account/two-factor': 'turnOffTwoFactor',
  'POST /account/two-factor/confirm': 'confirmTwoFactor',
  'POST /account/two-factor/recovery-codes': 'renewRecoveryCodes',

  'POST /users/register': 'register',
  'POST /users/confirm': 'confirmRegistration',
  'POST /users/confirm/resend': 'resendConfirmation',
  'POST /users/forgot-password': 'forgotPassword',
  'POST /users/reset-password': 'resetPassword',
  'GET /users/change-email': 'getPendingEmailChange',
  'POST /users/change-email': 'changeEmail',
  'GET /users': 'listUsers',
  'POST /users': 'createUser',
  'GET /users/export/email-consent': 'exportEmailConsent',
  'GET /users/{id}': 'getUser',
  'PUT /users/{id}': 'updateUser',
  'DELETE /users/{id}': 'closeUser',
  'POST /users/{id}/consent/email': 'giveEmailConsent',
  'DELETE /users/{id}/consent/email': 'withdrawEmailConsent',
  'GET /users/{id}/two-factor': 'getUserTwoFactorStatus',
  'DELETE /users/{id}/two-factor': 'resetUserTwoFactor',

  'GET /settings': 'getSettings',
  'PUT /settings/{key}': 'updateSetting',
  'DELETE /settings/{key}': 'deleteSetting',

  'GET /features': 'listFeatures',
  'POST /features': 'createFeature',
  'GET /features/{id}': 'getFeature',
  'PUT /features/{id}': 'updateFeature',
  'DELETE /features/{id}': 'deleteFeature',

  'GET /license-policies': 'listLicensePolicies',
  'POST /license-policies': 'createLicensePolicy',
  'GET /license-policies/{id}': 'getLicensePolicy',
  'PUT /license-policies/{id}': 'updateLicensePolicy',

  'GET /products': 'listProducts',
  'POST /products': 'createProduct',
  'GET /products/{id}': 'getProduct',
  'PUT /products/{id}': 'updateProduct',
  'DELETE /products/{id}': 'deleteProduct',
  'GET /products/{id}/versions': 'listProductVersions',

  'GET /tans': 'listTans',
  'POST /tans': 'createTans',
  'GET /tans/tags': 'listTanTags',
  'GET /tans/limits': 'getTanLimits',
  'GET /tans/{id}': 'getTan',
  'PUT /tans/{id}': 'updateTan',

  'GET /licenses': 'listLicenses',
  'GET /licenses/temporary-options': 'getTemporaryLicenseOptions',
  'POST /licenses/activate': 'activateLicense',
  'POST /licenses/temporary': 'addTemporaryLicense',
  'GET /licenses/{id}': 'getLicense',
  'PUT /licenses/{id}': 'updateLicense',
  'DELETE /licenses/{id}': 'deleteLicense',
  'POST /licenses/{id}/extend': 'extendLicense',
  'PUT /licenses/{id}/machine': 'changeLicenseMachine',
  'POST /licenses/{id}/move': 'moveLicense',
  'POST /licenses/{id}/upgrade': 'upgradeLicense',
  'GET /licenses/{id}/file': 'getLicenseFile',

  'POST /anylic': 'createAnyLicLink',
  'GET /anylic/{token}': 'downloadAnyLicFile',

  'GET /changes/{model}': 'listChanges',
  'GET /statistics/{category}': 'getStatistics',

  'GET /api-tokens': 'listApiTokens',
  'POST /api-tokens': 'createApiToken',
  'DELETE /api-tokens/{id}': 'revokeApiToken',

  'GET /webhook-endpoints': 'listWebhookEndpoints',
  'POST /webhook-endpoints': 'createWebhookEndpoint',
  'GET /webhook-endpoints/{id}': 'getWebhookEndpoint',
  'PUT /webhook-endpoints/{id}': 'updateWebhookEndpoint',
  'DELETE /webhook-endpoints/{id}': 'deleteWebhookEndpoint',
  'POST /webhook-endpoints/{id}/secret': 'rotateWebhookSecret',
  'GET /webhook-endpoints/{id}/deliveries': 'listWebhookDeliveries',
  'POST /webhook-endpoints/{id}/test': 'testWebhookEndpoint',
  'POST /webhook-deliveries/{id}/redeliver': 'redeliverWebhook',

  'POST /webhooks/orders': 'receiveOrder',
  'POST /client-errors': 'reportClientError',

  'GET /setup-status': 'getSetupStatus',

  'GET /shop-connections': 'listShopConnections',
  'POST /shop-connections': 'createShopConnection',
  'GET /shop-connections/{id}': 'getShopConnection',
  'PUT /shop-connections/{id}': 'updateShopConnection',
  'DELETE /shop-connections/{id}': 'deleteShopConnection',
  'GET /shop-connections/{id}/events': 'listShopEvents',
  'POST /shop-connections/{id}/events/{eventId}/replay': 'replayShopEvent',
  'GET /shop-purchases': 'listShopPurchases',
  'GET /shop-orders': 'listShopOrders',
  'POST /webhooks/shop/{id}': 'receiveShopEvent',

  'POST /client/v1/license': 'requestClientLicense',
  'DELETE /client/v1/license': 'releaseClientLicense',
  'GET /client/v1/keys': 'listSigningKeys',
  'GET /client/v1/keys/{kid}.pem': 'getSigningKeyPem',
};

/**
 * Operations anyone may call without signing in: the document gives them no security requirement.
 * (Routes with `config.sessionOnly` take the session cookie alone; every other one either.)
 */
export const PUBLIC_OPERATIONS: ReadonlySet<string> = new Set([
  'getHealth',
  'login',
  'register',
  'resendConfirmation',
  'forgotPassword',
  'resetPassword',
  'downloadAnyLicFile',
  'receiveOrder',
  'receiveShopEvent',
  'reportClientError',
  'requestClientLicense',
  'releaseClientLicense',
  'listSigningKeys',
  'getSigningKeyPem',
]);

/** Operations that answer anonymous callers too, and more to signed-in ones (the session, the public theme, a confirmation by token or by an administrator). */
export const OPTIONALLY_SIGNED_IN_OPERATIONS: ReadonlySet<string> = new Set(['getSession', 'logout', 'getSettings', 'confirmRegistration']);

/** The document's key of an operation: `GET /licenses/{id}`. */
export const operationKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
