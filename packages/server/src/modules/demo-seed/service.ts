/**
 * `npm run cli -- seed:demo`: example data for a new installation, made the way people would have
 * made it over fourteen months. The first administrator builds the catalogue and sells TANs in the
 * web shop and through a reseller; customers try products, buy, activate, change machines, move and
 * upgrade licenses; their desktop software refreshes its files. Every step is a call of the product's
 * own API (api.ts) at the moment it would have happened (clock.ts), so that the rules, the change log
 * and the statistics counters see ordinary use, and the demo shows what a real installation shows.
 */
import type { License } from '@lm/contract/license';
import type { Product } from '@lm/contract/product';
import type { Tan } from '@lm/contract/tan';
import { buildApp, type App } from '../../app.ts';
import { randomToken } from '../../platform/auth/secrets.ts';
import type { Config } from '../../platform/config.ts';
import { lastSeenRecorder } from '../license-files/last-seen.ts';
import { ensureAdministrator } from '../users/bootstrap.ts';
import { createUserFromCli } from '../users/cli.ts';
import { DemoApi, DemoStepFailed } from './api.ts';
import { ShiftedClock } from './clock.ts';
import { DEMO_CUSTOMERS, DEMO_DISTRIBUTOR, DEMO_FEATURES, DEMO_POLICY, DEMO_PRODUCTS, type DemoPerson, type DemoProduct } from './data.ts';
import { firstAdministrator, installationContents, policyIdsByName } from './repo.ts';
import { seededRandom } from '../../platform/seeded-random.ts';

const DAY_MS = 86_400_000;
/** How far back the demo's history starts, in days. */
const HISTORY_DAYS = 425;
/** Days between the demo's customers joining. */
const JOIN_EVERY_DAYS = 16;
/** Days between two refreshes of a machine's license by the desktop software. */
const REFRESH_EVERY_DAYS = 18;

const CONTENT_NAMES = {
  products: ['product', 'products'],
  features: ['feature', 'features'],
  tans: ['TAN', 'TANs'],
  licenses: ['license', 'licenses'],
  accounts: ['account besides administrators', 'accounts besides administrators'],
} as const;

/** The installation is not new: the demo never mixes its people and products into real ones. */
export class DemoRefused extends Error {}

export interface DemoReport {
  /**
   * The administrator the demo acted as; `created` when there was none yet (no server had started),
   * with the password made for it unless ADMIN_PASSWORD gave one.
   */
  administrator: { email: string; created: boolean; password?: string };
  distributor: string;
  customers: string[];
  password: string;
  products: number;
  features: number;
  tans: number;
  licenses: number;
  /** Accounts other than administrators. */
  accounts: number;
  seconds: number;
}

const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/** A customer's license as the demo follows it: which machine asks for it, under which product version. */
interface HeldLicense {
  id: number;
  machineId: string;
  product: DemoProduct;
  kind: License['kind'];
  /** Days before today when its customer stopped using it; 0 while still in use. */
  until: number;
  /** The desktop software stops asking (the license was revoked, moved away with its machine, upgraded). */
  ended: boolean;
}

type TanChannel = 'reseller' | 'shop';
/** The products customers buy (version 4 is no longer sold). */
type SoldProduct = Exclude<DemoProduct['key'], 'cad4'>;

export async function seedDemo(config: Config, options: { password?: string } = {}): Promise<DemoReport> {
  const started = performance.now();
  const app = await buildApp({ ...config, rateLimits: false }, { logger: false });
  const clock = new ShiftedClock();
  try {
    const contents = await installationContents(app.ctx.db);
    const present = (Object.keys(CONTENT_NAMES) as (keyof typeof CONTENT_NAMES)[]).filter((what) => contents[what] > 0);
    if (present.length) {
      const held = present.map((what) => `${contents[what]} ${CONTENT_NAMES[what][contents[what] === 1 ? 0 : 1]}`).join(', ');
      throw new DemoRefused(`seed:demo fills a new installation only, and this one already has ${held}. Point DATA_DIR or DATABASE_URL at a new database to try the demo.`);
    }
    const password = options.password ?? randomToken(9);
    const run = new DemoRun(app, clock, password);
    const administrator = await run.play();
    return {
      administrator,
      distributor: DEMO_DISTRIBUTOR.email,
      customers: DEMO_CUSTOMERS.map((customer) => customer.email),
      password,
      ...(await installationContents(app.ctx.db)),
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    clock.restore();
    // Closing writes the last-seen times still waiting; each carries the moment it was recorded.
    await app.close();
  }
}

/** One performance of the demo: its steps in the order of their moments, each at its moment. */
class DemoRun {
  private readonly app: App;
  private readonly clock: ShiftedClock;
  private readonly api: DemoApi;
  private readonly password: string;
  private readonly random = seededRandom(20_251_126);
  private readonly today = Date.now();
  private readonly steps: { at: number; order: number; run: () => Promise<void> }[] = [];
  private stepCount = 0;
  private administratorId = 0;
  private readonly productIds = new Map<DemoProduct['key'], number>();
  private readonly tanPools = new Map<string, string[]>();
  private resellerBatches = 0;
  private readonly tanIds = new Map<string, number>();
  private readonly licensesOf = new Map<string, HeldLicense[]>();

  constructor(app: App, clock: ShiftedClock, password: string) {
    this.app = app;
    this.clock = clock;
    this.password = password;
    this.api = new DemoApi(app, password);
  }

  async play(): Promise<DemoReport['administrator']> {
    this.clock.set(this.daysAgo(HISTORY_DAYS + 5, 8));
    const created = await ensureAdministrator(this.app.ctx);
    const administrator = (await firstAdministrator(this.app.ctx.db))!;
    this.administratorId = administrator.id;

    this.at(HISTORY_DAYS, 9, () => this.buildCatalogue());
    this.at(HISTORY_DAYS - 2, 11, async () => void (await this.createAccount(DEMO_DISTRIBUTOR, 'DISTRIBUTOR')));
    DEMO_CUSTOMERS.forEach((customer, index) => this.planCustomer(customer, index));
    this.at(300, 16, () => this.revokeLeakedTan());
    this.at(62, 10, () => this.releaseNewVersion());
    await this.runSteps();
    await lastSeenRecorder(this.app.ctx).flush();
    await this.api.endSessions();
    return { email: administrator.email, created: created !== null, password: created?.password };
  }

  // -------------------------------------------------------------------------------------------
  // Time

  /** The moment `days` before today at `hour` (UTC), a few minutes past it: never later than now. */
  private daysAgo(days: number, hour: number): number {
    const midnight = Math.floor(this.today / DAY_MS) * DAY_MS;
    return Math.min(midnight - days * DAY_MS + hour * 3_600_000 + Math.floor(this.random() * 50) * 60_000, this.today - 60_000);
  }

  private at(days: number, hour: number, run: () => Promise<void>): void {
    if (days < 1) return;
    this.steps.push({ at: this.daysAgo(days, hour), order: this.stepCount++, run });
  }

  /** Steps in time order; a step may plan later ones (a license's refreshes once it exists). */
  private async runSteps(): Promise<void> {
    while (this.steps.length) {
      this.steps.sort((a, b) => b.at - a.at || b.order - a.order);
      const step = this.steps.pop()!;
      this.clock.set(step.at);
      await step.run();
    }
  }

  // -------------------------------------------------------------------------------------------
  // The vendor

  private administrator(): Promise<string> {
    return this.api.administratorSession(this.administratorId);
  }

  private async buildCatalogue(): Promise<void> {
    const session = await this.administrator();
    for (const feature of DEMO_FEATURES) await this.api.call(session, 'POST', '/api/features', feature);
    await this.api.call(session, 'POST', '/api/license-policies', DEMO_POLICY);
    for (const product of DEMO_PRODUCTS.filter((candidate) => candidate.key !== 'cad6')) await this.createProduct(session, product);
  }

  private async createProduct(session: string, product: DemoProduct): Promise<void> {
    const policies = await policyIdsByName(this.app.ctx.db);
    const { key: _key, policy, releasedMonthsAgo, ...fields } = product;
    const releaseDate = isoDay(this.today - Math.round(releasedMonthsAgo * 30.5) * DAY_MS);
    const created = await this.api.call<Product>(session, 'POST', '/api/products', { ...fields, releaseDate, defaultLicensePolicyId: policies.get(policy) });
    this.productIds.set(product.key, created.id);
  }

  private createAccount(person: DemoPerson, role: 'DISTRIBUTOR' | 'USER'): Promise<number> {
    const { email, firstName, lastName, company, city, country, locale } = person;
    return createUserFromCli(this.app.ctx, { email, role, password: this.password, firstName, lastName, contact: { company, city, country }, locale, optInEmail: role === 'USER' && this.random() < 0.6 }).then(
      (created) => created.id,
    );
  }

  /** A TAN of the product bought in the shop or from the reseller; each sells in batches. */
  private async buyTan(channel: TanChannel, key: SoldProduct): Promise<string> {
    const poolKey = `${channel}:${key}`;
    const pool = this.tanPools.get(poolKey) ?? [];
    this.tanPools.set(poolKey, pool);
    if (!pool.length) {
      const now = Date.now();
      const month = isoDay(now).slice(0, 7);
      const fields = {
        productId: this.productIds.get(key),
        licenseCount: key === 'render' ? 5 : 1,
        // Every other reseller batch carries free updates for six months, the others the policy's year:
        // alternating, not by chance, so that some have ended whatever day the history ends on.
        freeUpdatesUntil: channel === 'reseller' && this.resellerBatches++ % 2 === 0 ? isoDay(now + 183 * DAY_MS) : null,
        tags: channel === 'reseller' ? ['northwind', `order-${month}`] : key === 'render' ? ['site-license'] : ['webshop'],
      };
      const { items: batch } =
        channel === 'reseller'
          ? await this.api.call<{ items: Tan[] }>(await this.api.login(DEMO_DISTRIBUTOR.email), 'POST', '/api/tans?count=5', fields)
          : await this.api.call<{ items: Tan[] }>(await this.administrator(), 'POST', `/api/tans?count=${key === 'render' ? 1 : 3}`, fields);
      for (const tan of batch) this.tanIds.set(tan.code, tan.id);
      pool.push(...batch.map((tan) => tan.code));
    }
    return pool.shift()!;
  }

  private async revokeLeakedTan(): Promise<void> {
    const code = await this.buyTan('reseller', 'cad5');
    await this.api.call(await this.administrator(), 'PUT', `/api/tans/${this.tanIds.get(code)}`, {
      revoked: true,
      notes: 'Posted in a forum; Northwind sent the customer a new one.',
    });
  }

  private async releaseNewVersion(): Promise<void> {
    await this.createProduct(await this.administrator(), DEMO_PRODUCTS.find((product) => product.key === 'cad6')!);
    // Most customers who are offered the free upgrade take it over the following weeks.
    for (const [email, licenses] of this.licensesOf) {
      for (const license of licenses.filter((candidate) => candidate.product.key === 'cad5' && candidate.kind === 'TAN')) {
        const day = 55 - Math.floor(this.random() * 40);
        if (license.until < day && this.random() < 0.7) this.at(day, 14, () => this.upgrade(email, license));
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // A customer's story

  private planCustomer(customer: DemoPerson, index: number): void {
    const joined = HISTORY_DAYS - 15 - index * JOIN_EVERY_DAYS;
    // One in four stops using the software some time after joining; their last visit tells when.
    const gone = index % 4 === 3 ? Math.max(joined - 60 - Math.floor(this.random() * 150), 20) : 0;
    const machine = machineIdOf(this.random);
    this.at(joined, 10, async () => {
      await this.createAccount(customer, 'USER');
      const session = await this.api.login(customer.email);
      if (index % 3 === 0) {
        // Every other one starts a week short of the trial period and extends by that week later:
        // a trial runs at most its period from its first day.
        const extended = index % 2 === 0;
        const trial = await this.addTrial(session, customer, this.currentCad(), machine, gone, extended ? 7 : 0);
        if (extended) this.at(joined - 10, 15, async () => this.api.call(await this.api.login(customer.email), 'POST', `/api/licenses/${trial.id}/extend`, { amount: 1, unit: 'weeks' }));
        // Most who try, buy: the trial's machine then gets the real license.
        if (index % 6 !== 3) this.at(joined - 20, 11, async () => this.activate(await this.api.login(customer.email), customer, this.currentCad(), index % 2 ? 'reseller' : 'shop', machine, gone));
      } else {
        await this.activate(session, customer, this.currentCad(), index % 3 === 1 ? 'reseller' : 'shop', machine, gone);
      }
    });
    if (index % 4 === 1) {
      this.at(joined - 5, 12, async () => void (await this.addTrial(await this.api.login(customer.email), customer, 'viewer', machine, gone)));
      this.at(joined - 19, 9, async () => this.activate(await this.api.login(customer.email), customer, 'viewer', 'shop', machine, gone));
    }
    // Companies buy seats for more computers as they grow.
    for (let days = joined - 45; customer.company && days > Math.max(gone, 1); days -= 50 + Math.floor(this.random() * 60)) {
      const channel: TanChannel = this.random() < 0.6 ? 'reseller' : 'shop';
      if (this.random() < 0.6) this.at(days, 13, async () => this.activate(await this.api.login(customer.email), customer, this.currentCad(), channel, machineIdOf(this.random), gone));
    }
    if (index === 0 || index === 10) {
      // A site license of the render server, on three of the company's computers.
      this.at(joined - 30, 10, async () => {
        const session = await this.api.login(customer.email);
        const code = await this.buyTan('shop', 'render');
        for (let computer = 0; computer < 3; computer++) await this.activateWith(session, customer, code, 'render', machineIdOf(this.random), gone);
      });
    }
    if (index === 1) this.at(joined - 150, 17, () => this.changeMachine(customer));
    if (index === 0) this.at(120, 10, () => this.moveToColleague(customer, DEMO_CUSTOMERS[16]));
    if (index === 7) this.at(90, 12, () => this.revokeForChargeback(customer));
    // The last visit: the active-users statistics count each account in the month of its latest login.
    const lastVisit = gone || 1 + Math.floor(this.random() * 25);
    if (lastVisit < joined) this.at(lastVisit, 18, async () => void (await this.api.login(customer.email)));
  }

  /** The version of Acme CAD on sale. */
  private currentCad(): 'cad5' | 'cad6' {
    return this.productIds.has('cad6') ? 'cad6' : 'cad5';
  }

  /** A trial of the product's whole trial period, or `shortByDays` less (to be extended by them later). */
  private async addTrial(session: string, customer: DemoPerson, key: 'cad5' | 'cad6' | 'viewer', machineId: string, gone: number, shortByDays = 0): Promise<License> {
    const product = DEMO_PRODUCTS.find((candidate) => candidate.key === key)!;
    const validUntil = isoDay(Date.now() + (product.trialDays! - shortByDays) * DAY_MS);
    const license = await this.api.call<License>(session, 'POST', '/api/licenses/temporary', { productId: this.productIds.get(key), machineId, validUntil });
    // The trial's software refreshes while the trial runs.
    this.follow(customer, { id: license.id, machineId, product, kind: 'TEMPORARY', until: Math.max(gone, daysBefore(this.today, Date.now()) - product.trialDays!), ended: false });
    return license;
  }

  private async activate(session: string, customer: DemoPerson, key: SoldProduct, channel: TanChannel, machineId: string, gone: number): Promise<void> {
    await this.activateWith(session, customer, await this.buyTan(channel, key), key, machineId, gone);
  }

  private async activateWith(session: string, customer: DemoPerson, tan: string, key: DemoProduct['key'], machineId: string, gone: number): Promise<void> {
    const license = await this.api.call<License>(session, 'POST', '/api/licenses/activate', { tan, machineId });
    this.follow(customer, { id: license.id, machineId, product: DEMO_PRODUCTS.find((product) => product.key === key)!, kind: 'TAN', until: gone, ended: false });
  }

  /** Plans the refreshes of a license's desktop software until its customer stops using it. */
  private follow(customer: DemoPerson, license: HeldLicense): void {
    const held = this.licensesOf.get(customer.email) ?? [];
    held.push(license);
    this.licensesOf.set(customer.email, held);
    for (let days = daysBefore(this.today, Date.now()) - 1; days > license.until; days -= REFRESH_EVERY_DAYS + Math.floor(this.random() * 5)) {
      this.at(days, 8 + Math.floor(this.random() * 10), () => this.refresh(license));
    }
  }

  /** The desktop software asks for its file; a refused one (revoked, trial over) stops asking. */
  private async refresh(license: HeldLicense): Promise<void> {
    if (license.ended) return;
    const response = await this.app.inject({
      method: 'POST',
      url: '/api/client/v1/license',
      payload: { machineId: license.machineId, product: license.product.name, version: license.product.version },
    });
    if (response.statusCode === 403) license.ended = true;
    else if (response.statusCode !== 200) throw new DemoStepFailed(`the desktop refresh of license ${license.id} answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
  }

  /** The customer takes the free upgrade the license page offers (not every license has one: free updates end). */
  private async upgrade(email: string, license: HeldLicense): Promise<void> {
    if (license.ended) return;
    const session = await this.api.login(email);
    if (!(await this.api.call<License>(session, 'GET', `/api/licenses/${license.id}`)).freeUpgrade) return;
    const upgraded = await this.api.call<License>(session, 'POST', `/api/licenses/${license.id}/upgrade`);
    license.ended = true;
    const customer = DEMO_CUSTOMERS.find((candidate) => candidate.email === email)!;
    this.follow(customer, { ...license, id: upgraded.id, product: DEMO_PRODUCTS.find((product) => product.key === 'cad6')!, ended: false });
  }

  private async changeMachine(customer: DemoPerson): Promise<void> {
    const license = this.licensesOf.get(customer.email)?.find((candidate) => candidate.product.key === 'cad5' && candidate.kind === 'TAN' && !candidate.ended);
    if (!license) return;
    const machineId = machineIdOf(this.random);
    await this.api.call(await this.api.login(customer.email), 'PUT', `/api/licenses/${license.id}/machine`, { machineId });
    license.machineId = machineId;
  }

  private async moveToColleague(customer: DemoPerson, colleague: DemoPerson): Promise<void> {
    const license = this.licensesOf.get(customer.email)?.find((candidate) => candidate.product.key === 'render' && !candidate.ended);
    if (!license) return;
    await this.api.call(await this.api.login(customer.email), 'POST', `/api/licenses/${license.id}/move`, { email: colleague.email });
  }

  private async revokeForChargeback(customer: DemoPerson): Promise<void> {
    const license = this.licensesOf.get(customer.email)?.find((candidate) => candidate.kind === 'TAN' && !candidate.ended);
    if (!license) return;
    await this.api.call(await this.administrator(), 'PUT', `/api/licenses/${license.id}`, { revoked: true });
    license.ended = true;
  }
}

/** Whole days from `time` to `today`. */
const daysBefore = (today: number, time: number) => Math.floor((today - time) / DAY_MS);

/** A machine id as desktop software makes them: four groups of four hex digits. */
function machineIdOf(random: () => number): string {
  return Array.from({ length: 4 }, () =>
    Math.floor(random() * 0x10000)
      .toString(16)
      .toUpperCase()
      .padStart(4, '0'),
  ).join('-');
}
