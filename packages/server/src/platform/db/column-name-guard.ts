import type { KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

/** The key a selection gets in the result row, or null where it cannot be told (`*`, a raw expression). */
function outputName(node: OperationNode): string | null {
  const named = node as OperationNode & { alias?: OperationNode; column?: OperationNode; name?: string };
  if (node.kind === 'AliasNode') return (named.alias as { name?: string }).name ?? null;
  if (node.kind === 'ReferenceNode') return outputName(named.column!);
  if (node.kind === 'ColumnNode') return (named.column as { name?: string }).name ?? null;
  return null;
}

/**
 * Refuses a select whose row would carry one key twice: with a join, `l.id` and `pol.id` both come
 * back as `id` and the later one silently overwrites the first (license files once named their
 * policy's id as the license's). Aliasing one of them (`pol.id as policy_id`) is the fix. Queries
 * are checked when they are compiled, so the prepared queries of the hot paths pay nothing.
 */
export class ColumnNameGuard implements KyselyPlugin {
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (node.kind === 'SelectQueryNode' && node.selections) {
      const seen = new Set<string>();
      for (const { selection } of node.selections) {
        const name = outputName(selection);
        if (name === null) continue;
        if (seen.has(name)) throw new Error(`A query selects two columns named "${name}"; give one of them an alias`);
        seen.add(name);
      }
    }
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}
