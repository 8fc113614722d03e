/**
 * What the agent exports (EAC-CPF, MARC authority) share: the per-type mapping each agent schema
 * declares in `x-archive.export`, structured dates, and the archival records that link to an agent.
 *
 *   "export": {
 *     "eac_cpf": { "entityType": "person", "nameParts": { "primary_name": "surname", ... } },
 *     "marc_auth": { "datesOfExistence": ["f", "g"] }
 *   }
 *
 * The routes (`archival_contexts/<plural>/:id.xml`, `agents/<plural>/marc21/:id.xml`) are made for
 * every agent type whose schema carries the block.
 */
import type {
  Accession, AnyOf, ArchivalObject, DigitalObject, DigitalObjectComponent, Event, Resource, StructuredDateLabel, StructuredDateRange,
  StructuredDateSingle,
} from '../../../generated/types';
import type { Services } from '../../records/context';
import { shownRecordsLinkingTo } from '../../store/record-finders';

export interface EacMapping {
  /** EAC-CPF entityType: person, family or corporateBody. */
  entityType: 'person' | 'family' | 'corporateBody';
  /** Name field → `part@localType`, in document order. */
  nameParts: Record<string, string>;
}

export interface MarcAuthMapping {
  /** 046 subfields for the beginning and end of existence (f/g for persons, s/t otherwise). */
  datesOfExistence: [string, string];
}

export interface StructuredDate {
  label?: string;
  single?: { text?: string; standard?: string; kind: 'standardDate' | 'notBefore' | 'notAfter' };
  from?: { text?: string; standard?: string; kind: 'standardDate' | 'notBefore' | 'notAfter' };
  to?: { text?: string; standard?: string; kind: 'standardDate' | 'notBefore' | 'notAfter' };
}

const STANDARD_KIND: Record<string, 'standardDate' | 'notBefore' | 'notAfter'> = {
  standard: 'standardDate', not_before: 'notBefore', not_after: 'notAfter',
};

/** A structured_date_label (agents' dates) read as one date or a range, or nothing when empty. */
export function structuredDate(d: StructuredDateLabel): StructuredDate | undefined {
  const part = (text: unknown, standard: unknown, type: unknown) =>
    text || standard ? { text: text as string | undefined, standard: standard as string | undefined, kind: STANDARD_KIND[String(type ?? 'standard')] ?? 'standardDate' } : undefined;
  if (d.date_type_structured === 'single') {
    const s: Partial<StructuredDateSingle> = d.structured_date_single ?? {};
    const single = part(s.date_expression, s.date_standardized, s.date_standardized_type);
    return single && { label: d.date_label, single };
  }
  const r: Partial<StructuredDateRange> = d.structured_date_range ?? {};
  const from = part(r.begin_date_expression, r.begin_date_standardized, r.begin_date_standardized_type);
  const to = part(r.end_date_expression, r.end_date_standardized, r.end_date_standardized_type);
  return from || to ? { label: d.date_label, from, to } : undefined;
}

/** The records that link agents (linked_agents with a role), as recordsLinkingTo reads them. */
type LinkingRecord = AnyOf<Resource | ArchivalObject | Accession | DigitalObject | DigitalObjectComponent | Event>;

/**
 * Archival records linking to the agent, with the role they give it: unsuppressed ones, and of
 * those only published ones unless `withUnpublished` (read through record_refs, one query).
 */
export async function recordsLinkingTo(
  s: Services, agentUri: string, withUnpublished: (repoId: number) => boolean,
): Promise<Array<{ role: string; uri: string; title: string }>> {
  const out: Array<{ role: string; uri: string; title: string }> = [];
  for (const found of await shownRecordsLinkingTo(s.db, agentUri)) {
    const { uri, repoId } = found;
    const record = found.record as LinkingRecord;
    if (record.publish !== true && !withUnpublished(repoId)) continue;
    for (const link of (record.linked_agents ?? []).filter((l) => l.ref === agentUri)) {
      out.push({ role: link.role, uri, title: String(record.title ?? record.display_string ?? uri) });
    }
  }
  return out;
}
