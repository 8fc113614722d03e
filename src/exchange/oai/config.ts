/**
 * The OAI-PMH provider's settings: one `oai_config` record in the store (`/oai_config/1`), as
 * ArchivesSpace keeps them: repository name, record identifier prefix, admin email, and the two
 * configured sets (repositories by code, finding aids by sponsor). Until an administrator saves
 * one, ArchivesSpace's defaults apply.
 */
import { errors, ErrorMap } from '../../errors';
import type { Obj } from '../../json';
import type { Actor, Services } from '../../records/context';
import { createRecord, updateRecord } from '../../records/write';
import { recordQueries } from '../../store/domain-reads';
import { RecordQueries } from '../../store/records';
import { writeTransaction } from '../../records/context';

export const OAI_CONFIG_TYPE = 'oai_config';
export const OAI_CONFIG_ID = 1;
const CONFIG_ID = OAI_CONFIG_ID;

export const OAI_CONFIG_DEFAULTS = {
  oai_repository_name: 'ArchivesSpace OAI Provider',
  oai_record_prefix: 'oai:archivesspace',
  oai_admin_email: 'admin@example.com',
};

export interface OaiSettings {
  repositoryName: string;
  recordPrefix: string;
  adminEmail: string;
  /** Repository codes whose records form the repository set (named repoSetName). */
  repoSetCodes: string[];
  repoSetName?: string;
  repoSetDescription?: string;
  /** Finding-aid sponsors whose resources (and their components) form the sponsor set. */
  sponsorSetNames: string[];
  sponsorSetName?: string;
  sponsorSetDescription?: string;
}

/** A JSON array kept in a string field (as ArchivesSpace stores the set lists); anything else is empty. */
function stringList(text: unknown): string[] {
  if (typeof text !== 'string' || !text.trim()) return [];
  try {
    const parsed = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

/** The stored configuration record, or the defaults shaped as one. */
export async function readOaiConfigRecord(s: Services): Promise<Obj> {
  const row = await recordQueries(s.db).get(OAI_CONFIG_TYPE, CONFIG_ID);
  if (row) return JSON.parse(row.json);
  return { lock_version: 0, jsonmodel_type: OAI_CONFIG_TYPE, ...OAI_CONFIG_DEFAULTS, uri: `/oai_config/${CONFIG_ID}` };
}

export async function oaiSettings(s: Services): Promise<OaiSettings> {
  const r = await readOaiConfigRecord(s);
  return {
    repositoryName: r.oai_repository_name,
    recordPrefix: r.oai_record_prefix,
    adminEmail: r.oai_admin_email,
    repoSetCodes: stringList(r.repo_set_codes),
    repoSetName: r.repo_set_name,
    repoSetDescription: r.repo_set_description,
    sponsorSetNames: stringList(r.sponsor_set_names),
    sponsorSetName: r.sponsor_set_name,
    sponsorSetDescription: r.sponsor_set_description,
  };
}

/** ArchivesSpace's checks beyond the schema: an email address, and a name and description for each set in use. */
function checkConfig(body: Obj): void {
  const problems: ErrorMap = {};
  if (!/^[A-Z0-9._%+-]+@[A-Z0-9.-]+\.[A-Z]{2,}$/i.test(String(body.oai_admin_email ?? ''))) {
    problems.oai_admin_email = ['must be a valid email address'];
  }
  if (stringList(body.repo_set_codes).length) {
    if (!body.repo_set_description) problems.repo_set_description = ['repo_set_desc_required'];
    if (!body.repo_set_name) problems.repo_set_name = ['repo_set_name_required'];
  }
  if (stringList(body.sponsor_set_names).length) {
    if (!body.sponsor_set_description) problems.sponsor_set_description = ['sponsor_set_desc_required'];
    if (!body.sponsor_set_name) problems.sponsor_set_name = ['sponsor_set_name_required'];
  }
  if (body.oai_record_prefix !== undefined && !/^[A-Za-z0-9\-_.!~*'():]+$/.test(String(body.oai_record_prefix))) {
    problems.oai_record_prefix = ['must be letters, digits and - _ . ! ~ * \' ( ) : only'];
  }
  if (Object.keys(problems).length) throw errors.conflictOnSave(problems);
}

/**
 * Saves the configuration (POST /oai_config and /oai_config/:id both update the one record). A
 * body without lock_version updates whatever is stored, as ArchivesSpace does; with one, a stale
 * lock_version is refused (409).
 */
export async function saveOaiConfig(s: Services, actor: Actor, body: Obj, warnings: ErrorMap) {
  checkConfig(body);
  const where = { type: s.registry.type(OAI_CONFIG_TYPE) };
  return writeTransaction(s, async (trx) => {
    const row = await new RecordQueries(trx).get(OAI_CONFIG_TYPE, CONFIG_ID);
    if (!row) return createRecord(s, actor, where, body, warnings, { id: CONFIG_ID, trx });
    const lockVersion = body.lock_version ?? Number(row.lock_version);
    return updateRecord(s, actor, where, CONFIG_ID, { ...body, lock_version: lockVersion }, warnings, { trx });
  });
}
