import type { ShopProvider } from '@lm/contract/shop';
import { fastSpringConnector } from './fastspring.ts';
import { genericConnector } from './generic.ts';
import { paddleConnector } from './paddle.ts';
import { shopifyConnector } from './shopify.ts';
import { stripeConnector } from './stripe.ts';
import type { Connector } from './types.ts';

export const CONNECTORS: Record<ShopProvider, Connector> = {
  stripe: stripeConnector,
  paddle: paddleConnector,
  fastspring: fastSpringConnector,
  shopify: shopifyConnector,
  generic: genericConnector,
};
