import fs from 'node:fs';
import path from 'node:path';

/** The version of the whole product (the root package.json): /metrics, the OpenAPI document, `npm run cli -- --version`. */
export const PRODUCT_VERSION = (JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../../package.json'), 'utf8')) as { version: string }).version;
