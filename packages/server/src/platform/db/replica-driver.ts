import { AsyncLocalStorage } from 'node:async_hooks';
import type { CompiledQuery, DatabaseConnection, Driver, QueryCompiler, QueryResult, TransactionSettings } from 'kysely';
import type { Replica, ReplicaSet } from './replicas.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

/**
 * Which reads a replica may answer (DESIGN.md section 9, "Read replicas"). Nothing changes for code
 * that reads and writes through `ctx.db`: the driver below sends a plain SELECT outside a transaction
 * to a replica only while the caller's scope allows it, and everything else (writes, raw SQL,
 * transactions, reads outside a scope) to the primary. A request's scope is opened by
 * platform/http/read-routing.ts; a single call's by `readFromReplica`.
 */
interface ReadScope {
  replica: boolean;
}

const readScope = new AsyncLocalStorage<ReadScope>();

/** Runs `work` in a scope of its own, whose reads may go to a replica until it writes or `allowReplicaReads(false)`. */
export function inReadScope<T>(mayUseReplica: boolean, work: () => T): T {
  return readScope.run({ replica: mayUseReplica }, work);
}

/** Allows or forbids the current scope's later reads on a replica (a request, once its caller is known). */
export function allowReplicaReads(allowed: boolean): void {
  const scope = readScope.getStore();
  if (scope) scope.replica = allowed;
}

/** `work`'s plain reads from a replica where one is usable, whatever the surrounding scope says. */
export function readFromReplica<T>(work: () => Promise<T>): Promise<T> {
  return readScope.run({ replica: true }, work);
}

const isPlainRead = (query: CompiledQuery) => query.query.kind === 'SelectQueryNode';

/** Kysely's driver for a primary with replicas: the primary's own driver for all but the reads above. */
export class ReplicaRoutingDriver implements Driver {
  readonly primary: Driver;
  readonly replicas: ReplicaSet;

  constructor(primary: Driver, replicas: ReplicaSet) {
    this.primary = primary;
    this.replicas = replicas;
  }

  init(): Promise<void> {
    return this.primary.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutingConnection(this);
  }

  /**
   * A read-only transaction (`db.transaction().setAccessMode('read only')`: the lists' pages and
   * counts, which set planner options for their statements) runs on a replica where the scope allows;
   * every other transaction on the primary.
   */
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const routing = connection as RoutingConnection;
    routing.inTransaction = true;
    routing.readOnly = settings.accessMode === 'read only';
    if (settings.accessMode === 'read only' && readScope.getStore()?.replica && (await routing.beginOnReplica(settings))) return;
    await this.primary.beginTransaction(await routing.onPrimary(), settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutingConnection).endTransaction('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutingConnection).endTransaction('rollback');
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.primary.savepoint?.(await (connection as RoutingConnection).onPrimary(), name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.primary.rollbackToSavepoint?.(await (connection as RoutingConnection).onPrimary(), name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.primary.releaseSavepoint?.(await (connection as RoutingConnection).onPrimary(), name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const routing = connection as RoutingConnection;
    await routing.releaseReplica();
    if (routing.primary) await this.primary.releaseConnection(routing.primary);
    routing.primary = null;
  }

  async destroy(): Promise<void> {
    await this.replicas.close();
    await this.primary.destroy();
  }
}

/**
 * One of Kysely's connections: a primary connection taken only when a statement needs one, so that a
 * read a replica answers holds no primary connection at all.
 */
class RoutingConnection implements DatabaseConnection {
  primary: DatabaseConnection | null = null;
  inTransaction = false;
  /** In a read-only transaction: its statements (`set local`) write nothing. */
  readOnly = false;
  /** A read-only transaction on a replica, with its statements so far (the primary runs them again if the replica goes away). */
  private onReplicaTx: { replica: Replica; connection: DatabaseConnection; settings: TransactionSettings; statements: CompiledQuery[] } | null = null;

  private readonly driver: ReplicaRoutingDriver;

  constructor(driver: ReplicaRoutingDriver) {
    this.driver = driver;
  }

  async onPrimary(): Promise<DatabaseConnection> {
    return (this.primary ??= await this.driver.primary.acquireConnection());
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.onReplicaTx) return this.inReplicaTransaction<R>(query);
    const scope = readScope.getStore();
    const plainRead = isPlainRead(query);
    if (plainRead && scope?.replica && !this.inTransaction && !this.primary) {
      const answer = await this.onReplica<R>(query);
      if (answer) return answer;
    }
    // A scope that wrote reads what it wrote: its later reads stay on the primary.
    if (!plainRead && scope && !this.readOnly) scope.replica = false;
    if (plainRead) this.driver.replicas.primaryReads++;
    return (await this.onPrimary()).executeQuery<R>(query);
  }

  /** Begins the read-only transaction on a usable replica; false (the primary takes it) when none is or it does not answer. */
  async beginOnReplica(settings: TransactionSettings): Promise<boolean> {
    const replica = this.driver.replicas.pick();
    if (!replica) return false;
    let connection: DatabaseConnection | undefined;
    try {
      connection = await replica.driver.acquireConnection();
      await replica.driver.beginTransaction(connection, settings);
      this.onReplicaTx = { replica, connection, settings, statements: [] };
      return true;
    } catch (error) {
      if (isDatabaseUnavailable(error)) this.driver.replicas.markDown(replica, error as Error);
      if (connection) await (replica.driver as Driver).releaseConnection(connection);
      return false;
    }
  }

  private async inReplicaTransaction<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const transaction = this.onReplicaTx!;
    try {
      const answer = await transaction.connection.executeQuery<R>(query);
      transaction.statements.push(query);
      if (isPlainRead(query)) transaction.replica.reads++;
      return answer;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      // The replica went away mid-transaction: the primary runs the same reads again, in a transaction of its own.
      this.driver.replicas.markDown(transaction.replica, error as Error);
      await this.releaseReplica();
      const primary = await this.onPrimary();
      await this.driver.primary.beginTransaction(primary, transaction.settings);
      for (const statement of transaction.statements) await primary.executeQuery(statement);
      return primary.executeQuery<R>(query);
    }
  }

  async endTransaction(end: 'commit' | 'rollback'): Promise<void> {
    this.inTransaction = false;
    this.readOnly = false;
    const transaction = this.onReplicaTx;
    if (transaction) {
      // Nothing was written there: ending it cannot lose anything, and a replica gone by now already ended it.
      await (end === 'commit' ? transaction.replica.driver.commitTransaction(transaction.connection) : transaction.replica.driver.rollbackTransaction(transaction.connection as never)).catch(() => undefined);
      return;
    }
    const primary = await this.onPrimary();
    await (end === 'commit' ? this.driver.primary.commitTransaction(primary) : this.driver.primary.rollbackTransaction(primary));
  }

  async releaseReplica(): Promise<void> {
    const transaction = this.onReplicaTx;
    this.onReplicaTx = null;
    if (transaction) await (transaction.replica.driver as Driver).releaseConnection(transaction.connection);
  }

  /** The read on a usable replica; undefined (the primary answers) when none is or the one tried went away. */
  private async onReplica<R>(query: CompiledQuery): Promise<QueryResult<R> | undefined> {
    const { replicas } = this.driver;
    const replica = replicas.pick();
    if (!replica) return undefined;
    let connection: DatabaseConnection | undefined;
    try {
      connection = await replica.driver.acquireConnection();
      const answer = await connection.executeQuery<R>(query);
      replica.reads++;
      return answer;
    } catch (error) {
      // Whatever failed there (the replica went away, a read cancelled by a conflict with recovery,
      // a table the replica has not replayed yet), the primary answers the read instead.
      if (isDatabaseUnavailable(error)) replicas.markDown(replica, error as Error);
      return undefined;
    } finally {
      if (connection) await (replica.driver as Driver).releaseConnection(connection);
    }
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    yield* (await this.onPrimary()).streamQuery<R>(query, chunkSize);
  }
}
