/**
 * What every importer does while it writes one file: records through the API's operations inside
 * the file's transaction, values added to editable value lists when a record needs them, agents
 * and subjects matched to existing ones (authority id, then heading) or created once, warnings
 * in the log, and the report of what was created.
 */
import { ApiError } from '../../errors';
import { isPlainObject, type Obj } from '../../json';
import type { Actor, Services } from '../../records/context';
import { addEnumerationValues } from '../../records/value-lists';
import { lookupHash, lookupValue } from '../../records/keys';
import { createRecord } from '../../records/write';
import { recordsWithJsonValue } from '../../store/record-finders';
import type { Tx } from '../../store/database';
import { RecordQueries } from '../../store/records';
import { holdDerivedRows } from '../../store/transaction-memo';
import { prepareRecord } from '../../validation';
import { ImportFailed, ImportInput, ImportOutput, ImportReport } from './types';

/** "Mixed Materials" → "mixed_materials": labels and types of a file as value-list values. */
export const slug = (text: string) => text.trim().toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '_').replace(/^_|_$/g, '');

export interface NameAttributes {
  source?: string;
  rules?: string;
  authfilenumber?: string;
}

export class ImportSession {
  protected readonly report: ImportReport;
  private readonly values = new Map<string, Set<string>>();
  private readonly agents = new Map<string, string>();
  private readonly subjects = new Map<string, string>();

  constructor(
    protected readonly s: Services, protected readonly trx: Tx, protected readonly repoId: number,
    protected readonly actor: Actor, protected readonly input: ImportInput, protected readonly out: ImportOutput,
  ) {
    this.report = { file: input.name, created: [], counts: {}, warnings: [] };
    holdDerivedRows(trx);
  }

  protected warn(message: string): void {
    this.report.warnings.push(message);
    this.out.log('warning', `${this.input.name}: ${message}`);
  }

  /** A value of an editable list; added to the list before the record that uses it is written. */
  protected value(list: string, raw: string): string {
    const v = slug(raw);
    if (!this.s.enums.get(list)?.values.includes(v)) {
      if (!this.values.has(list)) this.values.set(list, new Set());
      this.values.get(list)!.add(v);
    }
    return v;
  }

  /** Writes a record as the API would (validation, keys, links, change log); a refusal names the file and the path. */
  protected async create(typeName: string, body: Obj, path: string[]): Promise<string> {
    // A cancel takes effect at the next record, not only between chunks of the file (a small file is one chunk).
    if (this.out.signal?.aborted) throw new ImportFailed(`${this.input.name}: canceled`);
    const added = await addEnumerationValues(this.trx, this.s, this.values);
    for (const a of added) this.warn(`added the value ${a} to its value list`);
    this.values.clear();
    try {
      const prepared = prepareRecord(this.s.registry, this.s.enums, typeName, body);
      const type = this.s.registry.type(typeName);
      const result = await createRecord(this.s, this.actor, { type, repoId: type.scope === 'repository' ? this.repoId : undefined }, prepared.record, prepared.warnings, { trx: this.trx });
      this.report.created.push(result.uri);
      this.report.counts[typeName] = (this.report.counts[typeName] ?? 0) + 1;
      return result.uri;
    } catch (err) {
      // A subject or agent the store already holds under another heading (they are unique): that one is linked.
      const holder = err instanceof ApiError && isPlainObject(err.body.error) ? err.body.error.conflicting_record : undefined;
      if (this.s.registry.type(typeName).scope === 'global' && Array.isArray(holder) && typeof holder[0] === 'string') return holder[0];
      if (err instanceof ApiError) {
        const e = err.body.error;
        const detail = typeof e === 'string' ? e : Object.entries(e as Record<string, string[]>).slice(0, 3)
          .map(([k, v]) => `${k}: ${String(v).slice(0, 160)}`).join('; ');
        throw new ImportFailed(`${this.input.name}: ${path.join('/')}: the ${typeName} is not valid: ${detail}`);
      }
      throw err;
    }
  }

  /** The record of the type in this repository whose find_by_id value `param` is `value` (as GET …/find_by_id finds it). */
  protected async findByLookup(typeName: string, param: string, value: string): Promise<string | undefined> {
    const rule = this.s.registry.type(typeName).lookup?.[param];
    if (!rule) throw new Error(`${typeName} has no find_by_id parameter ${param}`);
    const [uri] = await new RecordQueries(this.trx).findByLookup(typeName, this.repoId, param, [lookupHash(lookupValue(rule.format, [value]))]);
    return uri;
  }

  /** An agent of the type, by authority id, else by heading; created (authorized, as the display name) when none exists. */
  protected async agent(type: string, rawHeading: string, attrs: NameAttributes, detail: { name?: Obj; record?: Obj } = {}): Promise<string> {
    const heading = rawHeading.slice(0, 255) || 'Unnamed';
    const authority = attrs.authfilenumber;
    const key = `${type}|${authority ?? ''}|${heading}`;
    const cached = this.agents.get(key);
    if (cached) return cached;
    const found = await this.findByJson(type, authority ? ['authority_id', authority] : ['sort_name', heading], (r) =>
      (r.names ?? []).some((x: Obj) => (authority ? x.authority_id === authority : x.sort_name === heading)));
    const uri = found ?? await this.create(type, {
      publish: true,
      ...detail.record,
      names: [{
        ...(type === 'agent_person' ? { primary_name: heading, name_order: 'inverted' } : type === 'agent_family' ? { family_name: heading }
          : type === 'agent_software' ? { software_name: heading } : { primary_name: heading }),
        sort_name: heading, sort_name_auto_generate: false, authorized: true, is_display_name: true,
        source: this.value('name_source', attrs.source ?? 'ingest'), ...(attrs.rules ? { rules: this.value('name_rule', attrs.rules) } : {}),
        ...(authority ? { authority_id: authority } : {}),
        ...detail.name,
      }],
    }, [type]);
    this.agents.set(key, uri);
    return uri;
  }

  /** A subject from a heading ("Railroads -- Ohio"), the first term of `termType`, by authority id, else by heading and source. */
  protected async subject(termType: string, heading: string, attrs: NameAttributes): Promise<string> {
    const source = this.value('subject_source', attrs.source ?? 'ingest');
    const authority = attrs.authfilenumber;
    const terms = heading.split(/\s*--\s*/).filter(Boolean).map((term, i) => ({ term, term_type: i === 0 ? termType : 'topical', vocabulary: '/vocabularies/1' }));
    const title = terms.map((t) => t.term).join(' -- ');
    const key = `${authority ?? ''}|${source}|${title}`;
    const cached = this.subjects.get(key);
    if (cached) return cached;
    const found = await this.findByJson('subject', authority ? ['authority_id', authority] : ['title', title], (r) =>
      (authority ? r.authority_id === authority : r.title === title && r.source === source));
    const uri = found ?? await this.create('subject', { source, vocabulary: '/vocabularies/1', terms, ...(authority ? { authority_id: authority } : {}) }, ['subject']);
    this.subjects.set(key, uri);
    return uri;
  }

  /** An existing record of the type whose JSON has `key: value`, confirmed by `matches`. */
  private async findByJson(type: string, [key, value]: [string, string], matches: (r: Obj) => boolean): Promise<string | undefined> {
    return (await recordsWithJsonValue(this.trx, { type }, key, value, 20)).find((r) => matches(r.record))?.uri;
  }
}

/**
 * One file's transaction. Values an import adds to value lists are in the catalogue as soon as
 * they are written (so the file's next records validate against them); when the file fails, its
 * transaction takes them back out of the store, and the catalogue is read again so that it does
 * not keep them either (the next file would otherwise be validated against values that are gone).
 */
export async function importTransaction<T>(s: Services, write: (trx: Tx) => Promise<T>): Promise<T> {
  try {
    return await s.db.transaction(write);
  } catch (err) {
    await s.enums.refresh(s.db.knex);
    throw err;
  }
}
