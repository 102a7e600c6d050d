/**
 * The statements that the statistics triggers of both databases share: each write appends ±n rows to
 * statistics_deltas (metric, day, product, distributor), never updating a row two writers share. NEW
 * and OLD name the trigger's rows in SQLite and in PL/pgSQL alike. Not a migration itself (the name
 * has no number).
 *
 * The counters are history (docs/statistics.md): what happened stays counted when its rows are
 * deleted later. So no trigger subtracts for a deleted license or user, a free upgrade is no new
 * activation or trial, and a TAN's ended free updates stay counted once their day has passed.
 *
 * These are the current triggers. Only the newest migration that changes them creates them (today
 * 0007, which drops the older ones first); when they change again, that moves to the new migration.
 */

export const delta = (metric: string, day: string, product: string, distributor: string, amount: string, condition = 'TRUE') =>
  `INSERT INTO statistics_deltas (metric, day, product_id, distributor_id, delta) SELECT '${metric}', substr(${day}, 1, 10), ${product}, ${distributor}, ${amount} WHERE ${condition};`;

/**
 * A license counts as an activation or a trial by product; an activation also by the distributor of
 * its TAN (a metric of its own, so that the product totals stay a few rows per day). The license of
 * a free upgrade continues one that was counted already: it counts nothing.
 */
export const licenseDelta = (row: 'NEW' | 'OLD', amount: string) =>
  `INSERT INTO statistics_deltas (metric, day, product_id, distributor_id, delta)
     SELECT CASE ${row}.kind WHEN 'TAN' THEN 'tan_activations' ELSE 'trial_licenses' END, substr(${row}.created_at, 1, 10), ${row}.product_id, 0, ${amount}
     WHERE ${row}.upgraded_from_id IS NULL;
   INSERT INTO statistics_deltas (metric, day, product_id, distributor_id, delta)
     SELECT 'tan_activations_distributor', substr(${row}.created_at, 1, 10), ${row}.product_id, distributor_id, ${amount} FROM tans
     WHERE ${row}.kind = 'TAN' AND ${row}.upgraded_from_id IS NULL AND id = ${row}.tan_id AND distributor_id IS NOT NULL;`;

/**
 * A TAN's free updates by the day they end, with the licenses activated from it. A day that has
 * passed is history and is never taken back (a deleted TAN, a changed date or product); a day still
 * ahead is only a plan and moves with the TAN. `today` is the database's expression for the UTC date.
 */
export function tanFreeUpdates(row: 'NEW' | 'OLD', sign: 1 | -1, today: string): string {
  const day = `${row}.free_updates_until`;
  const condition = `${day} IS NOT NULL${sign < 0 ? ` AND substr(${day}, 1, 10) >= ${today}` : ''}`;
  const licenses = sign < 0 ? `-${row}.activated_count` : `${row}.activated_count`;
  return [
    delta('tan_free_updates', day, `${row}.product_id`, '0', String(sign), condition),
    delta('tan_free_updates_licenses', day, `${row}.product_id`, '0', licenses, `${condition} AND ${row}.activated_count <> 0`),
  ].join('\n    ');
}

/** A trial of a machine for a product: the first one counts, with the first TAN license of that pair since. */
export const trialPair = `INSERT INTO statistics_trials (machine_id, product_id, first_trial_at, converted_at)
    SELECT NEW.machine_id, NEW.product_id, NEW.created_at,
      (SELECT min(created_at) FROM licenses WHERE kind = 'TAN' AND upgraded_from_id IS NULL AND machine_id = NEW.machine_id AND product_id = NEW.product_id AND created_at >= NEW.created_at)
    WHERE NEW.kind = 'TEMPORARY' AND NEW.machine_id IS NOT NULL AND NEW.upgraded_from_id IS NULL
    ON CONFLICT (machine_id, product_id) DO UPDATE SET first_trial_at = excluded.first_trial_at, converted_at = excluded.converted_at
    WHERE excluded.first_trial_at < statistics_trials.first_trial_at;`;

/** A TAN license converts the machine's earlier trial of the product. */
export const conversion = `UPDATE statistics_trials SET converted_at = NEW.created_at
    WHERE NEW.kind = 'TAN' AND NEW.upgraded_from_id IS NULL AND machine_id = NEW.machine_id AND product_id = NEW.product_id
      AND first_trial_at <= NEW.created_at AND (converted_at IS NULL OR converted_at > NEW.created_at);`;
