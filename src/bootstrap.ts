import { setPassword } from './domain/users/users';
import { ensureAdministratorsGroup } from './domain/users/groups';
import { isUniqueViolation } from './store/connect';
import { migrate } from './store/migrations';
import { sqlOf } from './store/database';
import { hasRecord } from './store/domain-reads';
import { ensureIdSequences } from './store/setup';
import { declareTouches } from './store/touches';
import { credentialsOf } from './store/users';
import { seedEnumerations, EnumerationCatalog } from './validation/enumerations';
import { prepareRecord } from './validation';
import { createRecord } from './records/write';
import { rederiveChangedKeys } from './records/key-rule-changes';
import { recordSystemEvent } from './records/system-events';
import { GLOBAL_REPO_ID, REPOSITORY_TYPE } from './registry';
import type { Services } from './records/context';
import { writeTransaction } from './records/context';

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
  declareTouches(s.db, s.registry.types);
  const applied = await migrate(sqlOf(s.db));
  if (applied.length) await recordSystemEvent(sqlOf(s.db), 'MIGRATIONS_APPLIED', applied.join(', '));
  await ignoreRace(() => seedEnumerations(s.db));
  const services: Services = { ...s, enums: await EnumerationCatalog.load(s.db) };
  await ensureIdSequences(s.db, Object.values(s.registry.types).filter((t) => t.uri).map((t) => t.name));
  await rederiveChangedKeys(s);
  for (const item of BUILT_IN) {
    if (await hasRecord(s.db, { type: item.type, id: item.id })) continue;
    const { record, warnings } = prepareRecord(services.registry, services.enums, item.type, item.body);
    // Read-only fields are the server's to set; a client could not send them.
    Object.assign(record, (item as { serverFields?: object }).serverFields);
    await ignoreRace(() =>
      createRecord(services, SYSTEM, { type: services.registry.type(item.type) }, record, warnings, { id: item.id, hidden: item.hidden }),
    );
  }
  await ignoreRace(() => writeTransaction(s, (trx) => ensureAdministratorsGroup(trx, services, SYSTEM)));
  if (!(await credentialsOf(s.db, 'admin'))) await ignoreRace(() => setPassword(s.db, 'admin', 1, s.config.adminPassword));
  return services;
}

async function ignoreRace(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
}
