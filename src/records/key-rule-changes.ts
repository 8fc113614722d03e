import crypto from 'node:crypto';
import { log } from '../log';
import { deleteKeysOf, insertLookupKeyRows, insertUniqueKeyUnlessTaken, keyRuleDigests, recordsAfter, saveKeyRuleDigests } from '../store/key-rules';
import type { Services } from './context';
import { lookupKeys, uniqueKeys } from './keys';
import { recordSystemEvent } from './system-events';
import { writeTransaction } from './context';

/**
 * The keys in unique_keys and lookup_keys follow the unique rules and find_by_id lookups of the
 * schemas they were written with. When a type's rules change (a schema gains a rule, as agents
 * did, or a lookup, as ARKs did), its records' keys are derived again at start, so that the new
 * rules hold for records stored before them as well: a digest of each type's rules is kept beside
 * the store (key_rule_versions).
 * Records that already break the new rule (the ones after the first of each clash) keep their
 * other keys and are named in the log (the first twenty): resolve such a clash by a merge or an edit.
 * Idempotent, so processes starting together may all run it.
 */
export async function rederiveChangedKeys(s: Pick<Services, 'db' | 'registry'>): Promise<void> {
  const pool = s.db.knex;
  const stored = await keyRuleDigests(pool);
  const changed: Array<{ type: string; digest: string }> = [];
  for (const type of Object.values(s.registry.types)) {
    if (type.kind !== 'record' || !type.uri) continue;
    const digest = crypto.createHash('sha256').update(JSON.stringify([type.unique ?? [], type.lookup ?? {}])).digest('hex');
    if (stored.get(type.name) === digest) continue;
    let rederived = 0;
    const clashes: string[] = [];
    for (let after = 0; ;) {
      const rows = await recordsAfter(pool, type.name, after, 500);
      if (!rows.length) break;
      after = Number(rows[rows.length - 1].rid);
      await writeTransaction(s, async (trx) => {
        await deleteKeysOf(trx, rows.map((r) => r.rid));
        for (const row of rows) {
          const record = JSON.parse(row.json);
          const lookups = lookupKeys(type, record).map((k) => ({ type: type.name, param: k.param, repo_id: Number(row.repo_id), value_hash: k.hash, rid: row.rid }));
          if (lookups.length) await insertLookupKeyRows(trx, lookups);
          for (const key of uniqueKeys(type, record, Number(row.repo_id))) {
            const keyRow = { type: type.name, rule: key.rule, scope: key.scope, key_hash: key.hash, rid: row.rid };
            if (!(await insertUniqueKeyUnlessTaken(trx, keyRow)) && clashes.length < 20) clashes.push(row.uri);
          }
        }
      });
      rederived += rows.length;
    }
    changed.push({ type: type.name, digest });
    if (rederived) {
      log.info('unique and lookup keys derived again: the type\'s rules changed', { type: type.name, records: rederived });
      await recordSystemEvent(pool, 'KEYS_DERIVED_AGAIN', `${type.name}: ${rederived} records${clashes.length ? `; breaking the new rules: ${clashes.join(', ')}` : ''}`);
      if (clashes.length) log.warn('records that break their type\'s unique rules (a new rule, or one changed) hold no key for the rule they break: merge or edit them', { type: type.name, records: clashes });
    }
  }
  // One statement for every digest recorded (a new store records them all at its first start).
  if (changed.length) await saveKeyRuleDigests(pool, changed);
}
