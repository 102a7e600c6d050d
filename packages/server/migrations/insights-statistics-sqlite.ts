/**
 * SQLite's statistics triggers (see insights-statistics-statements.ts for what they count and which
 * migration creates them): every write to licenses, tans, users and license_last_seen appends ±n rows
 * to statistics_deltas (metric, day, product, distributor). No row is ever updated in place by two
 * writers, so the triggers add no lock contention; the statistics read compacts the deltas into
 * statistics_daily. Not a migration itself (the name has no number).
 */
import { conversion, delta, licenseDelta, tanFreeUpdates, trialPair } from './insights-statistics-statements.ts';

const TODAY = `date('now')`;

const lastSeen = `INSERT INTO statistics_machines (machine_id, last_seen_at) VALUES (new.machine_id, new.last_seen_at)
    ON CONFLICT (machine_id) DO UPDATE SET last_seen_at = excluded.last_seen_at WHERE excluded.last_seen_at > statistics_machines.last_seen_at;
  INSERT INTO statistics_machine_products (machine_id, product_id, last_seen_at)
    SELECT new.machine_id, product_id, new.last_seen_at FROM licenses WHERE id = new.license_id
    ON CONFLICT (machine_id, product_id) DO UPDATE SET last_seen_at = excluded.last_seen_at WHERE excluded.last_seen_at > statistics_machine_products.last_seen_at;`;

const dayChanged = (column: string) => `substr(old.${column}, 1, 10) IS NOT substr(new.${column}, 1, 10)`;

export const SQLITE_TRIGGERS: string[] = [
  // Licenses: activations and trials by day of creation, kept when the license is deleted; trial
  // pairs and their conversion.
  `CREATE TRIGGER statistics_licenses_insert AFTER INSERT ON licenses BEGIN
    ${licenseDelta('NEW', '1')}
    ${trialPair}
    ${conversion}
  END`,
  `CREATE TRIGGER statistics_licenses_update AFTER UPDATE OF kind, product_id, created_at, tan_id ON licenses
   WHEN old.kind IS NOT new.kind OR old.product_id IS NOT new.product_id OR old.created_at IS NOT new.created_at OR old.tan_id IS NOT new.tan_id BEGIN
    ${licenseDelta('OLD', '-1')}
    ${licenseDelta('NEW', '1')}
  END`,
  `CREATE TRIGGER statistics_licenses_machine AFTER UPDATE OF machine_id ON licenses
   WHEN new.machine_id IS NOT NULL AND old.machine_id IS NOT new.machine_id BEGIN
    ${trialPair}
    ${conversion}
  END`,

  // TANs: ended free updates by their last day, with the licenses activated from them.
  `CREATE TRIGGER statistics_tans_insert AFTER INSERT ON tans BEGIN
    ${tanFreeUpdates('NEW', 1, TODAY)}
  END`,
  `CREATE TRIGGER statistics_tans_delete AFTER DELETE ON tans BEGIN
    ${tanFreeUpdates('OLD', -1, TODAY)}
  END`,
  `CREATE TRIGGER statistics_tans_moved AFTER UPDATE OF free_updates_until, product_id ON tans
   WHEN old.free_updates_until IS NOT new.free_updates_until OR old.product_id IS NOT new.product_id BEGIN
    ${tanFreeUpdates('OLD', -1, TODAY)}
    ${tanFreeUpdates('NEW', 1, TODAY)}
  END`,
  `CREATE TRIGGER statistics_tans_activated AFTER UPDATE OF activated_count ON tans
   WHEN old.activated_count IS NOT new.activated_count AND new.free_updates_until IS NOT NULL
     AND old.free_updates_until IS new.free_updates_until AND old.product_id IS new.product_id BEGIN
    ${delta('tan_free_updates_licenses', 'new.free_updates_until', 'new.product_id', '0', 'new.activated_count - old.activated_count')}
  END`,
  `CREATE TRIGGER statistics_tans_distributor AFTER UPDATE OF distributor_id ON tans
   WHEN old.distributor_id IS NOT new.distributor_id BEGIN
    INSERT INTO statistics_deltas (metric, day, product_id, distributor_id, delta)
      SELECT 'tan_activations_distributor', substr(created_at, 1, 10), product_id, old.distributor_id, -1 FROM licenses WHERE tan_id = new.id AND kind = 'TAN' AND old.distributor_id IS NOT NULL;
    INSERT INTO statistics_deltas (metric, day, product_id, distributor_id, delta)
      SELECT 'tan_activations_distributor', substr(created_at, 1, 10), product_id, new.distributor_id, 1 FROM licenses WHERE tan_id = new.id AND kind = 'TAN' AND new.distributor_id IS NOT NULL;
  END`,

  // Users: created, and by the day of their last login (a delta only when that day changes); a
  // deleted account stays counted.
  `CREATE TRIGGER statistics_users_insert AFTER INSERT ON users BEGIN
    ${delta('new_users', 'new.created_at', '0', '0', '1')}
    ${delta('active_users', 'new.last_login_at', '0', '0', '1', 'new.last_login_at IS NOT NULL')}
  END`,
  `CREATE TRIGGER statistics_users_login AFTER UPDATE OF last_login_at ON users WHEN ${dayChanged('last_login_at')} BEGIN
    ${delta('active_users', 'old.last_login_at', '0', '0', '-1', 'old.last_login_at IS NOT NULL')}
    ${delta('active_users', 'new.last_login_at', '0', '0', '1', 'new.last_login_at IS NOT NULL')}
  END`,

  // The desktop protocol's contacts: each machine's latest, overall and per product.
  `CREATE TRIGGER statistics_last_seen_insert AFTER INSERT ON license_last_seen BEGIN
    ${lastSeen}
  END`,
  `CREATE TRIGGER statistics_last_seen_update AFTER UPDATE OF last_seen_at, machine_id ON license_last_seen BEGIN
    ${lastSeen}
  END`,
  `CREATE TRIGGER statistics_machines_insert AFTER INSERT ON statistics_machines BEGIN
    ${delta('active_machines', 'new.last_seen_at', '0', '0', '1')}
  END`,
  `CREATE TRIGGER statistics_machines_update AFTER UPDATE OF last_seen_at ON statistics_machines WHEN ${dayChanged('last_seen_at')} BEGIN
    ${delta('active_machines', 'old.last_seen_at', '0', '0', '-1')}
    ${delta('active_machines', 'new.last_seen_at', '0', '0', '1')}
  END`,
  `CREATE TRIGGER statistics_machine_products_insert AFTER INSERT ON statistics_machine_products BEGIN
    ${delta('active_machine_products', 'new.last_seen_at', 'new.product_id', '0', '1')}
  END`,
  `CREATE TRIGGER statistics_machine_products_update AFTER UPDATE OF last_seen_at ON statistics_machine_products WHEN ${dayChanged('last_seen_at')} BEGIN
    ${delta('active_machine_products', 'old.last_seen_at', 'old.product_id', '0', '-1')}
    ${delta('active_machine_products', 'new.last_seen_at', 'new.product_id', '0', '1')}
  END`,

  // Trial pairs: machines that tried a product, by the day of their first trial, and those converted.
  `CREATE TRIGGER statistics_trials_insert AFTER INSERT ON statistics_trials BEGIN
    ${delta('trial_machines', 'new.first_trial_at', 'new.product_id', '0', '1')}
    ${delta('trial_converted', 'new.first_trial_at', 'new.product_id', '0', '1', 'new.converted_at IS NOT NULL')}
  END`,
  `CREATE TRIGGER statistics_trials_update AFTER UPDATE OF first_trial_at, converted_at ON statistics_trials
   WHEN old.first_trial_at IS NOT new.first_trial_at OR (old.converted_at IS NULL) IS NOT (new.converted_at IS NULL) BEGIN
    ${delta('trial_machines', 'old.first_trial_at', 'old.product_id', '0', '-1')}
    ${delta('trial_converted', 'old.first_trial_at', 'old.product_id', '0', '-1', 'old.converted_at IS NOT NULL')}
    ${delta('trial_machines', 'new.first_trial_at', 'new.product_id', '0', '1')}
    ${delta('trial_converted', 'new.first_trial_at', 'new.product_id', '0', '1', 'new.converted_at IS NOT NULL')}
  END`,
];
