import type { CompiledQuery, Compilable, DialectAdapter } from 'kysely';
import { committedReader, type Executor } from '../../platform/db/database.ts';

/**
 * Queries on the desktop protocol's path run thousands of times a second; building and compiling
 * them with Kysely costs more than running them. A prepared query is compiled once per database
 * (per dialect) with placeholder values and then run with each call's values in their places.
 */
export class PreparedQuery<Row, Values extends object> {
  private readonly build: (db: Executor, placeholders: Values) => Compilable<Row>;
  // By the dialect's adapter, which a database and its transactions share: the SQL depends on nothing else.
  private readonly compiled = new WeakMap<DialectAdapter, { query: CompiledQuery; slots: (keyof Values | undefined)[]; fixed: unknown[] }>();
  private readonly names: (keyof Values)[];
  private readonly readsCommitted: boolean;

  /**
   * `build` receives placeholder values to use wherever the call's values go. `readsCommitted`: a
   * read that may run on the embedded database's read-only connection when not in a transaction.
   */
  constructor(names: (keyof Values)[], build: (db: Executor, placeholders: Values) => Compilable<Row>, options: { readsCommitted?: boolean } = {}) {
    this.names = names;
    this.build = build;
    this.readsCommitted = options.readsCommitted ?? false;
  }

  async execute(db: Executor, values: Values): Promise<Row[]> {
    const adapter = db.getExecutor().adapter;
    let entry = this.compiled.get(adapter);
    if (!entry) {
      const placeholders = Object.fromEntries(this.names.map((name) => [name, `\u0000${String(name)}`])) as Values;
      const query = this.build(db, placeholders).compile();
      const slotOf = new Map(this.names.map((name) => [`\u0000${String(name)}`, name]));
      entry = { query, slots: query.parameters.map((value) => slotOf.get(value as string)), fixed: [...query.parameters] };
      this.compiled.set(adapter, entry);
    }
    const { query, slots, fixed } = entry;
    const parameters = slots.map((slot, index) => (slot === undefined ? fixed[index] : values[slot]));
    const reader = this.readsCommitted ? committedReader(db) : undefined;
    if (reader) return reader(query.sql, parameters) as Row[];
    const result = await db.executeQuery<Row>({ ...query, parameters });
    return result.rows;
  }
}
