/**
 * The connectors' signature checks against the providers' own code (issue 40 item 2): deliveries
 * signed by a provider's official library are accepted, deliveries our tests sign are accepted by
 * the provider's own verifier, and the timestamp tolerance decides as the provider's library does,
 * at its edges. The libraries are devDependencies of the server: the product verifies with
 * node:crypto alone (hmac.ts), these tests hold it to the libraries.
 *
 * - Stripe: `stripe` (stripe-node) signs with webhooks.generateTestHeaderString and verifies with
 *   webhooks.constructEvent / signature.verifyHeader (receivedAt lets the test set the clock).
 * - Paddle Billing: `@paddle/paddle-node-sdk` verifies with paddle.webhooks.isSignatureValid / unmarshal
 *   (it has no signer: only our signatures can be put to it); its clock is Date, faked here.
 * - Shopify: `@shopify/shopify-api` signs with its test helper getHmac and verifies with
 *   shopify.webhooks.validate.
 * - FastSpring has no official Node library; its scheme is checked against its documentation below.
 */
import { createHmac } from 'node:crypto';
import '@shopify/shopify-api/adapters/web-api';
import { Paddle } from '@paddle/paddle-node-sdk';
import { ApiVersion, shopifyApi } from '@shopify/shopify-api';
import { getHmac as shopifyTestHmac } from '@shopify/shopify-api/test-helpers';
import Stripe from 'stripe';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fastSpringConnector, fastSpringSignature } from './fastspring.ts';
import { paddleConnector, paddleSignatureHeader } from './paddle.ts';
import { shopifyConnector, shopifySignature } from './shopify.ts';
import { stripeConnector, stripeSignatureHeader } from './stripe.ts';
import type { Delivery } from './types.ts';

const NOW = Date.UTC(2026, 0, 31, 12, 0, 0);
const delivery = (rawBody: string, headers: Record<string, string>, now = NOW): Delivery => ({ rawBody, headers, now: new Date(now) });
const BODY = JSON.stringify({ id: 'evt_1NG8Du2eZvKYlo2CUI79vXWy', object: 'event', type: 'checkout.session.completed', data: { object: { id: 'cs_test_1', note: 'Grüße, 日本' } } });

describe('Stripe (stripe-node)', () => {
  const stripe = new Stripe('sk_test_not_used_no_request_is_made');
  const secret = 'whsec_test_secret_0123456789';
  const t = NOW / 1000;
  /** Whether stripe-node accepts the header at `nowMs` with its default tolerance. */
  const libraryAccepts = (header: string, nowMs: number, key = secret) => {
    try {
      stripe.webhooks.constructEvent(BODY, header, key, undefined, undefined, nowMs);
      return true;
    } catch {
      return false;
    }
  };
  const oursAccepts = (header: string, nowMs: number, key = secret) => stripeConnector.verify(key, delivery(BODY, { 'stripe-signature': header }, nowMs));

  it('accepts what stripe-node signs, and stripe-node accepts what we sign', () => {
    const theirs = stripe.webhooks.generateTestHeaderString({ payload: BODY, secret, timestamp: t });
    expect(oursAccepts(theirs, NOW)).toBe(true);
    const ours = stripeSignatureHeader(secret, BODY, t);
    expect(ours).toBe(theirs);
    expect(stripe.webhooks.constructEvent(BODY, ours, secret, undefined, undefined, NOW)).toMatchObject({ id: 'evt_1NG8Du2eZvKYlo2CUI79vXWy' });
  });

  it('refuses what another secret or another body signed, as stripe-node does', () => {
    const other = stripe.webhooks.generateTestHeaderString({ payload: BODY, secret: 'whsec_other', timestamp: t });
    expect([oursAccepts(other, NOW), libraryAccepts(other, NOW)]).toEqual([false, false]);
    const otherBody = stripe.webhooks.generateTestHeaderString({ payload: `${BODY} `, secret, timestamp: t });
    expect([oursAccepts(otherBody, NOW), libraryAccepts(otherBody, NOW)]).toEqual([false, false]);
    // A second v1 (while a secret is rolled) may be the one that matches, in both.
    const rolled = `${stripe.webhooks.generateTestHeaderString({ payload: BODY, secret, timestamp: t })},v1=${'0'.repeat(64)}`;
    expect([oursAccepts(rolled, NOW), libraryAccepts(rolled, NOW)]).toEqual([true, true]);
  });

  it('decides the 300-second tolerance as stripe-node does: whole seconds of age, a timestamp ahead of the clock accepted', () => {
    const header = stripe.webhooks.generateTestHeaderString({ payload: BODY, secret, timestamp: t });
    const ages = [0, 1, 299_999, 300_000, 300_999, 301_000, 301_001, 3_600_000, -1000, -301_000, -86_400_000];
    const decisions = ages.map((age) => ({ age, ours: oursAccepts(header, NOW + age), library: libraryAccepts(header, NOW + age) }));
    for (const decision of decisions) expect(decision.ours, `age ${decision.age} ms`).toBe(decision.library);
    expect(decisions.filter((decision) => decision.ours).map((decision) => decision.age)).toEqual([0, 1, 299_999, 300_000, 300_999, -1000, -301_000, -86_400_000]);
  });
});

describe('Paddle Billing (@paddle/paddle-node-sdk)', () => {
  const secret = 'pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI5vEI';
  // The SDK's own entry: `new Paddle(apiKey).webhooks` (constructing it sets up its Node runtime; no request is made).
  const paddle = new Paddle('pdl_sdbx_apikey_not_used').webhooks;
  // https://developer.paddle.com/webhooks/subscriptions/subscription-past-due, cut to what the SDK's entity reads.
  const body = JSON.stringify({
    event_id: 'evt_01h8bkrmjyt0w1gr7g3gcnqrbf',
    event_type: 'subscription.past_due',
    occurred_at: '2026-01-31T12:00:00.000000Z',
    notification_id: 'ntf_01h8bkrmmvv5cks3t1jeh2e1aa',
    data: { id: 'sub_01h8bkrmjyt0w1gr7g3gcnqrbf', status: 'past_due', customer_id: 'ctm_01h8441jn5pcwrfhwh78jqt8hk', currency_code: 'EUR', collection_mode: 'automatic', billing_cycle: { interval: 'month', frequency: 1 }, items: [] },
  });
  const at = async <T>(nowMs: number, run: () => Promise<T>): Promise<T> => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(nowMs);
    try {
      return await run();
    } finally {
      vi.useRealTimers();
    }
  };
  afterEach(() => vi.useRealTimers());

  it('the SDK accepts what we sign and unmarshals it; another secret or body is refused by both', async () => {
    const header = paddleSignatureHeader(secret, body, NOW / 1000);
    expect(await at(NOW, () => paddle.isSignatureValid(body, secret, header))).toBe(true);
    expect(await at(NOW, () => paddle.unmarshal(body, secret, header))).toMatchObject({ eventId: 'evt_01h8bkrmjyt0w1gr7g3gcnqrbf', eventType: 'subscription.past_due' });
    expect(paddleConnector.verify(secret, delivery(body, { 'paddle-signature': header }))).toBe(true);
    const other = paddleSignatureHeader('pdl_ntfset_other_secret', body, NOW / 1000);
    expect(await at(NOW, () => paddle.isSignatureValid(body, secret, other))).toBe(false);
    expect(paddleConnector.verify(secret, delivery(body, { 'paddle-signature': other }))).toBe(false);
    expect(await at(NOW, () => paddle.isSignatureValid(`${body} `, secret, header))).toBe(false);
    expect(paddleConnector.verify(secret, delivery(`${body} `, { 'paddle-signature': header }))).toBe(false);
  });

  it('decides the five-second tolerance as the SDK does, to the millisecond; a timestamp ahead of the clock is accepted by both', async () => {
    const header = paddleSignatureHeader(secret, body, NOW / 1000);
    const ages = [0, 4_999, 5_000, 5_001, 6_000, 60_000, -1_000, -60_000];
    const decisions = [];
    for (const age of ages) {
      const library = await at(NOW + age, () => paddle.isSignatureValid(body, secret, header));
      decisions.push({ age, library, ours: paddleConnector.verify(secret, delivery(body, { 'paddle-signature': header }, NOW + age)) });
    }
    for (const decision of decisions) expect(decision.ours, `age ${decision.age} ms`).toBe(decision.library);
    expect(decisions.filter((decision) => decision.ours).map((decision) => decision.age)).toEqual([0, 4_999, 5_000, -1_000, -60_000]);
  });
});

describe('Shopify (@shopify/shopify-api)', () => {
  const secret = 'shpss_0123456789abcdef0123456789abcdef';
  const shopify = shopifyApi({ apiKey: 'key', apiSecretKey: secret, apiVersion: ApiVersion.January25, hostName: 'app.example.com', isEmbeddedApp: false, logger: { level: 0 } });
  const body = JSON.stringify({ id: 820982911946154500, email: 'jon@example.com', financial_status: 'paid', line_items: [{ id: 866550311766439000, variant_id: 808950810, quantity: 1 }] });
  const headers = (hmac: string) => ({
    'x-shopify-hmac-sha256': hmac,
    'x-shopify-topic': 'orders/paid',
    'x-shopify-shop-domain': 'example.myshopify.com',
    'x-shopify-api-version': '2025-01',
    'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    'x-shopify-event-id': '98880550-7158-44d4-b7cd-2c97c8a091b5',
    'content-type': 'application/json',
  });
  const libraryValidates = async (hmac: string, rawBody = body) =>
    (await shopify.webhooks.validate({ rawBody, rawRequest: new Request('https://app.example.com/api/webhooks/shop/1', { method: 'POST', headers: headers(hmac), body: rawBody }) })).valid;

  it('accepts what the library’s test helper signs, and the library validates what we sign; another secret or body is refused by both', async () => {
    const theirs = shopifyTestHmac(body, secret);
    expect(shopifyConnector.verify(secret, delivery(body, headers(theirs)))).toBe(true);
    const ours = shopifySignature(secret, body);
    expect(await libraryValidates(ours)).toBe(true);
    const other = shopifySignature('shpss_another_secret', body);
    expect([shopifyConnector.verify(secret, delivery(body, headers(other))), await libraryValidates(other)]).toEqual([false, false]);
    expect([shopifyConnector.verify(secret, delivery(`${body} `, headers(ours))), await libraryValidates(ours, `${body} `)]).toEqual([false, false]);
  });
});

describe('FastSpring (no official Node library)', () => {
  // https://developer.fastspring.com/docs/message-security ("Message Security"): "FastSpring servers will use
  // that key [the webhook's HMAC SHA256 Secret] to generate a hashed digest of each webhook payload. The
  // resulting digest will be encoded to base64 and included in the X-FS-Signature header"; its PHP example is
  // base64_encode(hash_hmac('sha256', file_get_contents('php://input'), $secret, true)), its Node example the
  // same with crypto.createHmac('sha256', secret).update(body).digest('base64'). The header "is not
  // case-sensitive" (Node's HTTP layer lowercases it). The page publishes code, not example values (secret,
  // body and signature), so the documented computation is what the connector is checked against.
  const secret = 'fastspring-hmac-secret';
  const body = JSON.stringify({ events: [{ id: 'Xhb2GU7fQ2m3CcJoZFlTBA', type: 'order.completed', live: false, processed: false, created: NOW, data: { order: 'nB5HYU5qT1yD8fGV3D6ZHw', completed: true } }] });
  const documented = createHmac('sha256', secret).update(body).digest('base64');

  it('is the base64 HMAC-SHA256 of the raw body, as the documentation computes it', () => {
    expect(fastSpringSignature(secret, body)).toBe(documented);
    expect(fastSpringConnector.verify(secret, delivery(body, { 'x-fs-signature': documented }))).toBe(true);
    expect(fastSpringConnector.verify(secret, delivery(body, { 'x-fs-signature': createHmac('sha256', 'other').update(body).digest('base64') }))).toBe(false);
    expect(fastSpringConnector.verify(secret, delivery(`${body}\n`, { 'x-fs-signature': documented }))).toBe(false);
    // The hex form of the same digest is not the documented encoding.
    expect(fastSpringConnector.verify(secret, delivery(body, { 'x-fs-signature': createHmac('sha256', secret).update(body).digest('hex') }))).toBe(false);
  });
});
