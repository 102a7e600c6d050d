/**
 * PostgreSQL's statistics triggers, the same rules as insights-statistics-sqlite.ts written as PL/pgSQL
 * functions: every write appends ±n rows to statistics_deltas, never updating a shared row, so
 * concurrent writers never wait for each other here. Not a migration itself (no number).
 */
import { conversion, delta, licenseDelta, tanFreeUpdates, trialPair } from './insights-statistics-statements.ts';

const TODAY = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

const dayChanged = (column: string) => `substr(OLD.${column}, 1, 10) IS DISTINCT FROM substr(NEW.${column}, 1, 10)`;

function trigger(table: string, body: string): string[] {
  const name = `statistics_${table}`;
  return [
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
${body}
  RETURN NULL;
END
$$`,
    `CREATE TRIGGER ${name} AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  ];
}

export const POSTGRES_TRIGGERS: string[] = [
  ...trigger(
    'licenses',
    `  IF TG_OP = 'INSERT' THEN
    ${licenseDelta('NEW', '1')}
    ${trialPair}
    ${conversion}
  ELSIF TG_OP = 'UPDATE' THEN
    IF OLD.kind IS DISTINCT FROM NEW.kind OR OLD.product_id IS DISTINCT FROM NEW.product_id OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.tan_id IS DISTINCT FROM NEW.tan_id THEN
      ${licenseDelta('OLD', '-1')}
      ${licenseDelta('NEW', '1')}
    END IF;
    IF NEW.machine_id IS NOT NULL AND OLD.machine_id IS DISTINCT FROM NEW.machine_id THEN
      ${trialPair}
      ${conversion}
    END IF;
  END IF;`,
  ),
  ...trigger(
    'tans',
    `  IF TG_OP = 'INSERT' THEN
    ${tanFreeUpdates('NEW', 1, TODAY)}
  ELSIF TG_OP = 'DELETE' THEN
    ${tanFreeUpdates('OLD', -1, TODAY)}
  ELSE
    IF OLD.free_updates_until IS DISTINCT FROM NEW.free_updates_until OR OLD.product_id IS DISTINCT FROM NEW.product_id THEN
      ${tanFreeUpdates('OLD', -1, TODAY)}
      ${tanFreeUpdates('NEW', 1, TODAY)}
    ELSIF OLD.activated_count IS DISTINCT FROM NEW.activated_count AND NEW.free_updates_until IS NOT NULL THEN
      ${delta('tan_free_updates_licenses', 'NEW.free_updates_until', 'NEW.product_id', '0', 'NEW.activated_count - OLD.activated_count')}
    END IF;
    IF OLD.distributor_id IS DISTINCT FROM NEW.distributor_id THEN
      INSERT INTO statistics_deltas (metric, day, product_id, distributor_id, delta)
        SELECT 'tan_activations_distributor', substr(created_at, 1, 10), product_id, OLD.distributor_id, -1 FROM licenses WHERE tan_id = NEW.id AND kind = 'TAN' AND OLD.distributor_id IS NOT NULL;
      INSERT INTO statistics_deltas (metric, day, product_id, distributor_id, delta)
        SELECT 'tan_activations_distributor', substr(created_at, 1, 10), product_id, NEW.distributor_id, 1 FROM licenses WHERE tan_id = NEW.id AND kind = 'TAN' AND NEW.distributor_id IS NOT NULL;
    END IF;
  END IF;`,
  ),
  ...trigger(
    'users',
    `  IF TG_OP = 'INSERT' THEN
    ${delta('new_users', 'NEW.created_at', '0', '0', '1')}
    ${delta('active_users', 'NEW.last_login_at', '0', '0', '1', 'NEW.last_login_at IS NOT NULL')}
  ELSIF TG_OP = 'UPDATE' AND ${dayChanged('last_login_at')} THEN
    ${delta('active_users', 'OLD.last_login_at', '0', '0', '-1', 'OLD.last_login_at IS NOT NULL')}
    ${delta('active_users', 'NEW.last_login_at', '0', '0', '1', 'NEW.last_login_at IS NOT NULL')}
  END IF;`,
  ),
  ...trigger(
    'license_last_seen',
    `  IF TG_OP <> 'DELETE' THEN
    INSERT INTO statistics_machines (machine_id, last_seen_at) VALUES (NEW.machine_id, NEW.last_seen_at)
      ON CONFLICT (machine_id) DO UPDATE SET last_seen_at = excluded.last_seen_at WHERE excluded.last_seen_at > statistics_machines.last_seen_at;
    INSERT INTO statistics_machine_products (machine_id, product_id, last_seen_at)
      SELECT NEW.machine_id, product_id, NEW.last_seen_at FROM licenses WHERE id = NEW.license_id
      ON CONFLICT (machine_id, product_id) DO UPDATE SET last_seen_at = excluded.last_seen_at WHERE excluded.last_seen_at > statistics_machine_products.last_seen_at;
  END IF;`,
  ),
  ...trigger(
    'statistics_machines',
    `  IF TG_OP = 'INSERT' THEN
    ${delta('active_machines', 'NEW.last_seen_at', '0', '0', '1')}
  ELSIF TG_OP = 'UPDATE' AND ${dayChanged('last_seen_at')} THEN
    ${delta('active_machines', 'OLD.last_seen_at', '0', '0', '-1')}
    ${delta('active_machines', 'NEW.last_seen_at', '0', '0', '1')}
  END IF;`,
  ),
  ...trigger(
    'statistics_machine_products',
    `  IF TG_OP = 'INSERT' THEN
    ${delta('active_machine_products', 'NEW.last_seen_at', 'NEW.product_id', '0', '1')}
  ELSIF TG_OP = 'UPDATE' AND ${dayChanged('last_seen_at')} THEN
    ${delta('active_machine_products', 'OLD.last_seen_at', 'OLD.product_id', '0', '-1')}
    ${delta('active_machine_products', 'NEW.last_seen_at', 'NEW.product_id', '0', '1')}
  END IF;`,
  ),
  ...trigger(
    'statistics_trials',
    `  IF TG_OP = 'INSERT' THEN
    ${delta('trial_machines', 'NEW.first_trial_at', 'NEW.product_id', '0', '1')}
    ${delta('trial_converted', 'NEW.first_trial_at', 'NEW.product_id', '0', '1', 'NEW.converted_at IS NOT NULL')}
  ELSIF TG_OP = 'UPDATE' AND (OLD.first_trial_at IS DISTINCT FROM NEW.first_trial_at OR (OLD.converted_at IS NULL) <> (NEW.converted_at IS NULL)) THEN
    ${delta('trial_machines', 'OLD.first_trial_at', 'OLD.product_id', '0', '-1')}
    ${delta('trial_converted', 'OLD.first_trial_at', 'OLD.product_id', '0', '-1', 'OLD.converted_at IS NOT NULL')}
    ${delta('trial_machines', 'NEW.first_trial_at', 'NEW.product_id', '0', '1')}
    ${delta('trial_converted', 'NEW.first_trial_at', 'NEW.product_id', '0', '1', 'NEW.converted_at IS NOT NULL')}
  END IF;`,
  ),
];

export const POSTGRES_TRIGGER_NAMES = ['licenses', 'tans', 'users', 'license_last_seen', 'statistics_machines', 'statistics_machine_products', 'statistics_trials'];
