/**
 * The statements that the statistics triggers of both databases share (migration 0006): each write
 * appends ±n rows to statistics_deltas (metric, day, product, distributor), never updating a row two
 * writers share. NEW and OLD name the trigger's rows in SQLite and in PL/pgSQL alike. Not a
 * migration itself (the name has no number).
 */

export const delta = (metric: string, day: string, product: string, distributor: string, amount: string, condition = 'TRUE') =>
  `INSERT INTO statistics_deltas (metric, day, product_id, distributor_id, delta) SELECT '${metric}', substr(${day}, 1, 10), ${product}, ${distributor}, ${amount} WHERE ${condition};`;

/**
 * A license counts as an activation or a trial by product; an activation also by the distributor of
 * its TAN (a metric of its own, so that the product totals stay a few rows per day).
 */
export const licenseDelta = (row: 'NEW' | 'OLD', amount: string) =>
  `INSERT INTO statistics_deltas (metric, day, product_id, distributor_id, delta)
     SELECT CASE ${row}.kind WHEN 'TAN' THEN 'tan_activations' ELSE 'trial_licenses' END, substr(${row}.created_at, 1, 10), ${row}.product_id, 0, ${amount};
   INSERT INTO statistics_deltas (metric, day, product_id, distributor_id, delta)
     SELECT 'tan_activations_distributor', substr(${row}.created_at, 1, 10), ${row}.product_id, distributor_id, ${amount} FROM tans
     WHERE ${row}.kind = 'TAN' AND id = ${row}.tan_id AND distributor_id IS NOT NULL;`;

/** A trial of a machine for a product: the first one counts, with the first TAN license of that pair since. */
export const trialPair = `INSERT INTO statistics_trials (machine_id, product_id, first_trial_at, converted_at)
    SELECT NEW.machine_id, NEW.product_id, NEW.created_at,
      (SELECT min(created_at) FROM licenses WHERE kind = 'TAN' AND machine_id = NEW.machine_id AND product_id = NEW.product_id AND created_at >= NEW.created_at)
    WHERE NEW.kind = 'TEMPORARY' AND NEW.machine_id IS NOT NULL
    ON CONFLICT (machine_id, product_id) DO UPDATE SET first_trial_at = excluded.first_trial_at, converted_at = excluded.converted_at
    WHERE excluded.first_trial_at < statistics_trials.first_trial_at;`;

/** A TAN license converts the machine's earlier trial of the product. */
export const conversion = `UPDATE statistics_trials SET converted_at = NEW.created_at
    WHERE NEW.kind = 'TAN' AND machine_id = NEW.machine_id AND product_id = NEW.product_id
      AND first_trial_at <= NEW.created_at AND (converted_at IS NULL OR converted_at > NEW.created_at);`;
