import type { Repository } from '../../../generated/types';
import { errors } from '../../errors';
import type { Obj } from '../../json';
import { isPlainObject } from '../../json';
import { REPOSITORY_TYPE } from '../../registry';
import { prepareRecord } from '../../validation';
import type { Actor, Services } from '../../records/context';
import { readRecord } from '../../records/load';
import { createRecord, updateRecord } from '../../records/write';
import { writeTransaction } from '../../records/context';

/**
 * A repository with the corporate agent that represents it (its name and contacts, used for the
 * address in finding aids): /repositories/with_agent. The agent is created or updated with the
 * repository, in one transaction; the repository's agent_representation (read-only elsewhere) links it.
 */
const AGENT = 'agent_corporate_entity';

function parts(body: unknown): { repository: Obj; agent?: Obj } {
  if (!isPlainObject(body) || !isPlainObject(body.repository)) throw errors.propertyMissing('repository');
  if (body.agent_representation !== undefined && !isPlainObject(body.agent_representation)) {
    throw errors.mustBe('agent_representation', 'an agent_corporate_entity object');
  }
  return { repository: body.repository, agent: body.agent_representation as Obj | undefined };
}

export async function getRepositoryWithAgent(s: Services, id: number): Promise<Obj> {
  const repository = await readRecord(s, { type: s.registry.type(REPOSITORY_TYPE) }, id);
  const ref = (repository as Repository).agent_representation?.ref;
  const agent = ref ? await readRecord(s, { type: s.registry.type(AGENT) }, Number(ref.split('/').pop())) : undefined;
  return { repository, ...(agent ? { agent_representation: agent } : {}), uri: `/repositories/with_agent/${id}`, jsonmodel_type: 'repository_with_agent' };
}

export async function createRepositoryWithAgent(s: Services, actor: Actor, body: unknown): Promise<Obj> {
  const { repository, agent } = parts(body);
  const repo = prepareRecord(s.registry, s.enums, REPOSITORY_TYPE, repository);
  const agentPrepared = agent ? prepareRecord(s.registry, s.enums, AGENT, agent) : undefined;
  return writeTransaction(s, async (trx) => {
    if (agentPrepared) {
      const created = await createRecord(s, actor, { type: s.registry.type(AGENT) }, agentPrepared.record, agentPrepared.warnings, { trx });
      (repo.record as Repository).agent_representation = { ref: created.uri };
    }
    return createRecord(s, actor, { type: s.registry.type(REPOSITORY_TYPE) }, repo.record, repo.warnings, { trx });
  });
}

export async function updateRepositoryWithAgent(s: Services, actor: Actor, id: number, body: unknown): Promise<Obj> {
  const { repository, agent } = parts(body);
  const current = await readRecord(s, { type: s.registry.type(REPOSITORY_TYPE) }, id) as Repository;
  const repo = prepareRecord(s.registry, s.enums, REPOSITORY_TYPE, repository);
  return writeTransaction(s, async (trx) => {
    let ref = current.agent_representation?.ref;
    if (agent) {
      const prepared = prepareRecord(s.registry, s.enums, AGENT, agent);
      if (ref) {
        const agentId = Number(ref.split('/').pop());
        const stored = await readRecord(s, { type: s.registry.type(AGENT) }, agentId, trx);
        prepared.record.lock_version = prepared.record.lock_version ?? stored.lock_version;
        await updateRecord(s, actor, { type: s.registry.type(AGENT) }, agentId, prepared.record, prepared.warnings, { trx });
      } else {
        ref = (await createRecord(s, actor, { type: s.registry.type(AGENT) }, prepared.record, prepared.warnings, { trx })).uri;
      }
    }
    if (ref) (repo.record as Repository).agent_representation = { ref };
    return updateRecord(s, actor, { type: s.registry.type(REPOSITORY_TYPE) }, id, repo.record, repo.warnings, { trx });
  });
}

/** POST /repositories/:repo_id/position: where the repository comes in the listing of repositories. */
export async function setRepositoryPosition(s: Services, actor: Actor, id: number, position: number): Promise<Obj> {
  const current = await readRecord(s, { type: s.registry.type(REPOSITORY_TYPE) }, id);
  const { record, warnings } = prepareRecord(s.registry, s.enums, REPOSITORY_TYPE, current);
  // position is read-only in the record (only this route sets it).
  (record as Repository).position = position;
  return updateRecord(s, actor, { type: s.registry.type(REPOSITORY_TYPE) }, id, record, warnings);
}
