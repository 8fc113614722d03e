import type { Tx } from '../store/database';
import { errors } from '../errors';
import { RecordQueries, type RecordRow } from '../store/records';
import { descendants } from '../store/positions';
import { ridsInTree } from '../store/trees';
import { isoSeconds, Services, writeTransaction } from './context';
import type { Where } from './context';
import type { Obj } from '../json';
import { walkShapes } from '../validation/walk';

/** The record and, for a tree root or node, every record below it. */
async function graph(trx: Tx, rid: number, uri: string): Promise<number[]> {
  const below = await ridsInTree(trx, uri);
  return [rid, ...(below.length ? below : await descendants(trx, rid))];
}

/** Sets publish on what a record holds that can be published (notes, file versions...), as the reference's cascade. */
function publishNested(s: Services, typeName: string, record: Obj, publish: boolean): void {
  const type = s.registry.types[typeName];
  if (!type) return;
  walkShapes(s.registry, { typeName, props: type.props, obj: record, path: '' }, (shape) => {
    if (shape.typeName && shape.obj !== record && shape.props.publish) shape.obj.publish = publish;
  });
}

/**
 * Sets `suppressed` or `publish` on a record and its tree in one transaction. As in the reference,
 * these bulk flags do not bump lock_version; the change log still records every record touched.
 */
async function setFlag(s: Services, where: Where, id: number, field: 'suppressed' | 'publish', value: boolean) {
  return writeTransaction(s, async (trx) => {
    const q = new RecordQueries(trx);
    const row = await q.keysOf(where.type.name, id, where.repoId ?? 0);
    if (!row) throw errors.notFound(where.type.model);
    const now = Date.now();
    for (const rid of await graph(trx, row.rid, row.uri)) {
      const current = (await q.jsonOf(rid))!;
      const record = JSON.parse(current.json);
      record[field] = value;
      // Publishing and unpublishing reach every publishable record of the graph, nested ones too (publish!(setting) over object_graph).
      if (field === 'publish') publishNested(s, current.type, record, value);
      record.system_mtime = isoSeconds(now);
      const columns: Partial<RecordRow> = { json: JSON.stringify(record), system_mtime_ms: now };
      if (field === 'suppressed') columns.suppressed = value;
      await q.overwrite(rid, columns);
      await q.appendChange(current.type, current.uri, 'upsert', now);
    }
    return { lockVersion: row.lock_version };
  });
}

export async function setSuppressed(s: Services, where: Where, id: number, suppressed: boolean) {
  await setFlag(s, where, id, 'suppressed', suppressed);
  return { status: 'Suppressed', id, suppressed_state: suppressed };
}

export async function setPublished(s: Services, where: Where, id: number, publish: boolean) {
  const { lockVersion } = await setFlag(s, where, id, 'publish', publish);
  return { status: 'Updated', id, lock_version: lockVersion, stale: null };
}
