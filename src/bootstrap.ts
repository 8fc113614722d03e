import { setPassword } from './domain/users/users';
import { ensureAdministratorsGroup } from './domain/users/groups';
import { isUniqueViolation } from './store/connect';
import { migrate } from './store/migrations';
import { seedEnumerations, EnumerationCatalog } from './validation/enumerations';
import { prepareRecord } from './validation';
import { createRecord } from './records/write';
import { rederiveChangedKeys } from './records/key-rule-changes';
import { recordSystemEvent } from './records/system-events';
import { GLOBAL_REPO_ID, REPOSITORY_TYPE } from './registry';
import type { Services } from './records/context';

const SYSTEM = { username: 'admin' };

/** Records every installation has (auth-and-permissions.md section 7, endpoints.md section 11). */
const BUILT_IN = [
  { type: REPOSITORY_TYPE, id: GLOBAL_REPO_ID, hidden: true, body: { repo_code: '_archivesspace', name: 'Global repository' } },
  { type: 'vocabulary', id: 1, hidden: false, body: { ref_id: 'global', name: 'global' } },
  { type: 'user', id: 1, hidden: false, body: { username: 'admin', name: 'Administrator' }, serverFields: { is_system_user: true, source: 'local' } },
  // The system's own software agent (auth-and-permissions.md section 7): what scripts name as the program behind an event.
  {
    type: 'agent_software', id: 1, hidden: false, body: { names: [{ software_name: 'ArchivesSpace', sort_name: 'ArchivesSpace', source: 'local' }] },
    serverFields: { system_generated: true },
  },
];

/**
 * Migrates the store and creates the built-in records if they are missing. Safe to run from
 * several processes at once: a record another process created first is simply kept.
 */
export async function bootstrap(s: Omit<Services, 'enums'>): Promise<Services> {
  const applied = await migrate(s.db.knex);
  if (applied.length) await recordSystemEvent(s.db.knex, 'MIGRATIONS_APPLIED', applied.join(', '));
  await ignoreRace(() => seedEnumerations(s.db.knex));
  const services: Services = { ...s, enums: await EnumerationCatalog.load(s.db.knex) };
  // Every type's id sequence exists before the first create, so concurrent first creates only
  // ever increment a row (two inserts of the same new row would deadlock on MariaDB).
  const sequenced = Object.values(s.registry.types).filter((t) => t.uri).map((t) => ({ type: t.name, last_id: 0 }));
  await s.db.knex('id_sequences').insert(sequenced).onConflict('type').ignore();
  await rederiveChangedKeys(s);
  for (const item of BUILT_IN) {
    const exists = await s.db.knex('records').where({ type: item.type, id: item.id }).first('rid');
    if (exists) continue;
    const { record, warnings } = prepareRecord(services.registry, services.enums, item.type, item.body);
    // Read-only fields are the server's to set; a client could not send them.
    Object.assign(record, (item as { serverFields?: object }).serverFields);
    await ignoreRace(() =>
      createRecord(services, SYSTEM, { type: services.registry.type(item.type) }, record, warnings, { id: item.id, hidden: item.hidden }),
    );
  }
  await ignoreRace(() => s.db.transaction((trx) => ensureAdministratorsGroup(trx, services, SYSTEM)));
  const admin = await s.db.knex('credentials').where({ username: 'admin' }).first('username');
  if (!admin) await ignoreRace(() => setPassword(s.db.knex, 'admin', 1, s.config.adminPassword));
  return services;
}

async function ignoreRace(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
}
