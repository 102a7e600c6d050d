/**
 * Shop events as the providers send them (DESIGN.md section 6c), signed as each provider signs:
 * payload shapes follow the providers' published webhook examples, cut to the fields a connector reads
 * plus a few around them.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { ShopDeliveryResult, ShopProvider } from '@lm/contract/shop';
import type { App } from '../src/app.ts';
import type { Client } from './invariants-support.ts';

export const id = (prefix: string) => `${prefix}${randomBytes(6).toString('hex')}`;
export const unix = (date: Date | number = Date.now()) => Math.floor((typeof date === 'number' ? date : date.getTime()) / 1000);
export const DAY = 86_400_000;

export interface SignedDelivery {
  raw: string;
  headers: Record<string, string>;
}

const hmac = (secret: string, message: string) => createHmac('sha256', secret).update(message).digest();

/**
 * Signs a body as the provider documents it (written here again, not taken from the connectors, so
 * that a connector verifying the wrong scheme fails), at `at` (seconds) for the schemes with a timestamp.
 */
export function sign(provider: ShopProvider, secret: string, body: unknown, options: { at?: number; headers?: Record<string, string> } = {}): SignedDelivery {
  const raw = JSON.stringify(body);
  const at = options.at ?? unix();
  const signature: Record<ShopProvider, () => Record<string, string>> = {
    stripe: () => ({ 'stripe-signature': `t=${at},v1=${hmac(secret, `${at}.${raw}`).toString('hex')}` }),
    paddle: () => ({ 'paddle-signature': `ts=${at};h1=${hmac(secret, `${at}:${raw}`).toString('hex')}` }),
    fastspring: () => ({ 'x-fs-signature': hmac(secret, raw).toString('base64') }),
    shopify: () => ({ 'x-shopify-hmac-sha256': hmac(secret, raw).toString('base64') }),
    generic: () => ({ 'x-signature': hmac(secret, raw).toString('hex') }),
  };
  return { raw, headers: { ...signature[provider](), ...options.headers } };
}

export function post(app: App, connectionId: number, delivery: SignedDelivery) {
  return app.inject({ method: 'POST', url: `/api/webhooks/shop/${connectionId}`, payload: delivery.raw, headers: { 'content-type': 'application/json', ...delivery.headers } });
}

export async function accepted(app: App, connectionId: number, delivery: SignedDelivery): Promise<ShopDeliveryResult['events']> {
  const response = await post(app, connectionId, delivery);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as ShopDeliveryResult).events;
}

export async function connect(admin: Client, body: Record<string, unknown>): Promise<{ id: number }> {
  const response = await admin.post('/api/shop-connections', { body: { name: 'Shop', secret: 'shop-secret-0123456789', graceDays: 3, ...body } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

// Stripe (https://docs.stripe.com/api/events/object): `{ id: "evt_…", object: "event", type, created, data: { object } }`.

export function stripeEvent(type: string, object: Record<string, unknown>, created = unix()) {
  return { id: id('evt_'), object: 'event', api_version: '2024-06-20', created, livemode: false, pending_webhooks: 1, type, data: { object } };
}

export function stripeCheckout(options: { price: string; quantity?: number; email: string; machineId?: string; locale?: string }) {
  return stripeEvent('checkout.session.completed', {
    id: id('cs_test_'),
    object: 'checkout.session',
    mode: 'payment',
    status: 'complete',
    payment_status: 'paid',
    payment_intent: id('pi_'),
    customer_details: { email: options.email, name: 'Grace Hopper', address: null },
    locale: options.locale ?? 'de',
    metadata: { items: `${options.price}:${options.quantity ?? 1}`, ...(options.machineId ? { machine_id: options.machineId } : {}) },
    amount_total: 4900,
    currency: 'eur',
  });
}

export function stripeInvoicePaid(options: { subscription: string; price: string; quantity?: number; email: string; periodEnd: number; machineId?: string; created?: number }) {
  const invoice = id('in_');
  return {
    invoice,
    event: stripeEvent(
      'invoice.paid',
      {
        id: invoice,
        object: 'invoice',
        billing_reason: 'subscription_cycle',
        customer_email: options.email,
        customer_name: 'Grace Hopper',
        payment_intent: id('pi_'),
        status: 'paid',
        subscription: options.subscription,
        subscription_details: { metadata: options.machineId ? { machine_id: options.machineId } : {} },
        lines: {
          object: 'list',
          data: [
            {
              id: id('il_'),
              object: 'line_item',
              price: { id: options.price, object: 'price', product: 'prod_NWjs8kKbJWmuuc' },
              quantity: options.quantity ?? 1,
              period: { start: options.periodEnd - 30 * 86_400, end: options.periodEnd },
            },
          ],
        },
      },
      options.created,
    ),
  };
}
