/**
 * What each path, query and header parameter means, for the parameters whose schema carries no
 * description of its own (the list parameters describe themselves: contract/src/list.ts). Looked up by
 * `<path> <name>` first, then by name; a path's `{id}` names the record its path is about.
 */
type Parameter = { name: string; in: string; description?: string };

const BY_PATH: Record<string, string> = {
  '/client/v1/keys/{kid}.pem kid': 'The key id (`kid`) of a published signing key, as `GET /client/v1/keys` lists it',
  '/account/sessions/{id} id': "The session's id, as `GET /account/sessions` lists it",
  '/settings/{key} key': 'The setting, e.g. `SERVER_CUSTOMER_ID`',
  '/changes/{model} model': 'The kind of record whose changes to list',
  '/statistics/{category} category': 'The statistics to answer',
  '/anylic/{token} token': 'The token of the ANY-Lic link, as its creation answered it',
  '/shop-connections/{id}/events/{eventId}/replay eventId': 'The id of the stored shop event to apply again',
  '/webhooks/shop/{id} id': "The shop connection's id, as its webhook address in the shop names it",
  '/webhooks/orders x-signature': 'Lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook secret',
  '/licenses scope': '`all`: every license the caller may see across accounts (administrators all, distributors those of their TANs); `filter` then also matches the owner\'s name and e-mail',
  '/licenses userId': "Only this account's licenses (administrators and distributors)",
  '/licenses tanId': 'Only the licenses activated with this TAN',
  '/licenses offline': 'true: only licenses an offline machine can use (neither revoked, upgraded nor expired)',
  '/license-policies type': 'Only policies of this type',
  '/products active': 'Only active (true) or inactive (false) products',
  '/products resolveFeatures': "true: each product's features with expand-to-features applied (and featureNames matched on them)",
  '/products featureNames': 'Only products having every one of these features (comma-separated names)',
  '/products ids': 'Only these products (comma-separated ids, at most 100)',
  '/tans tag': 'Only TANs with this tag',
  '/tans revoked': 'Only revoked (true) or unrevoked (false) TANs',
  '/tans productId': 'Only TANs of this product',
  '/tans count': 'How many TANs to create at once (default 1)',
  '/users accessRole': 'Only accounts of this role',
  '/users/export/email-consent separator': 'The CSV field separator: comma (default) or semicolon (spreadsheets set to German and other languages)',
  '/changes/{model} recordId': 'Only the changes of this record',
  '/changes/{model} operation': 'Only changes of this kind',
  '/statistics/{category} from': 'The first day, inclusive (default: the first day of the month eleven months ago)',
  '/statistics/{category} to': 'The last day, inclusive (default: today, UTC)',
  '/statistics/{category} productId': 'Only this product',
  '/licenses/{id}/file format': 'lic (default): the armored text file; json: one line of JSON',
  '/api-tokens ownerId': "Only this account's tokens (administrators)",
  '/webhook-endpoints/{id}/deliveries status': 'Only deliveries in this state',
  '/shop-connections/{id}/events outcome': 'Only events with this outcome',
  '/shop-connections/{id}/events offset': 'How many matching events to skip (default 0)',
  '/shop-connections/{id}/events limit': 'How many events to answer, 1 to 1000 (default 50)',
  '/shop-orders connectionId': 'Only the events of this shop connection',
  '/shop-orders outcome': 'Only events with this outcome, or `duplicate`: delivered more than once',
  '/shop-orders filter': "A part of the order, subscription or event id, or of the buyer's address",
  '/shop-orders offset': 'How many matching events to skip (default 0)',
  '/shop-orders limit': 'How many events to answer, 1 to 1000 (default 50)',
  '/releases/{id}/artifacts/{artifactId}/download artifactId': "The artifact's id, as the release lists it",
  '/artifacts/{artifactId}/file artifactId': "The artifact's id, as the signed link names it",
  '/artifacts/{artifactId}/file expires': 'When the signed link ends (Unix seconds), as the update answer gave it',
  '/organizations all': 'true: every organization (staff); otherwise those the caller belongs to',
  '/organizations/{id}/members/{userId} userId': "The member's account id",
  '/organizations/{id}/invitations/{invitationId} invitationId': "The invitation's id, as the organization lists it",
  '/invitations/{token} token': 'The token of the invitation link, as the mail gave it',
  '/invitations/{token}/accept token': 'The token of the invitation link, as the mail gave it',
  '/organizations/{id}/seats/{seatId} seatId': "The seat's id, as the organization's seats list it",
  '/device userCode': 'The code the desktop program shows (8 letters, a dash allowed)',
};

/** `/license-policies/{id}` → "license policy". */
function recordOf(path: string): string {
  const segments = path.split('/').filter(Boolean);
  const index = segments.indexOf('{id}');
  const collection = (index > 0 ? segments[index - 1] : segments[0]) ?? 'record';
  const singular = collection.endsWith('ies') ? `${collection.slice(0, -3)}y` : collection.replace(/s$/, '');
  return singular.replaceAll('-', ' ').replace(/^tan$/, 'TAN');
}

/** Fills in the descriptions the parameters lack; answers the `<method> <path> <name>` of those it could not. */
export function describeParameters(paths: Record<string, Record<string, { parameters?: Parameter[] }>>): string[] {
  const missing: string[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.description) continue;
        const described = BY_PATH[`${path} ${parameter.name}`] ?? (parameter.in === 'path' && parameter.name === 'id' ? `The ${recordOf(path)}'s id` : undefined);
        if (described) parameter.description = described;
        else missing.push(`${method} ${path} ${parameter.name}`);
      }
    }
  }
  return missing;
}
