import type { Obj } from '../json';
import type { Registry } from '../registry';

/**
 * Properties a type guards with a permission (x-archive.guardedProperties: an agent's contacts,
 * which the original shows and lets be set only by holders of view_agent_contact_record_global).
 */

/** Whether records of the type lose a property for a caller withholding `withheld`. */
export function withholdsFrom(registry: Registry, typeName: string, withheld: ReadonlySet<string> | undefined): boolean {
  if (!withheld?.size) return false;
  return Object.values(registry.types[typeName]?.guardedProperties ?? {}).some((code) => withheld.has(code));
}

/** Empties, in place, the guarded properties of `records` the caller may not see (a list becomes [], anything else goes). */
export function withhold(registry: Registry, records: Obj[], withheld: ReadonlySet<string> | undefined): void {
  if (!withheld?.size) return;
  for (const record of records) {
    for (const [property, code] of Object.entries(registry.types[record.jsonmodel_type]?.guardedProperties ?? {})) {
      if (!withheld.has(code) || record[property] === undefined) continue;
      if (Array.isArray(record[property])) record[property] = [];
      else delete record[property];
    }
  }
}

/** A create that sends a value for a guarded property the caller may not set (refused with 403, as the original). */
export function createSetsWithheld(registry: Registry, typeName: string, body: Obj, withheld: ReadonlySet<string>): boolean {
  return Object.entries(registry.types[typeName]?.guardedProperties ?? {}).some(([property, code]) => {
    const value = body[property];
    return withheld.has(code) && value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
  });
}

/** The guarded properties an update by the caller leaves as stored, whatever the body says. */
export function keptOnUpdate(registry: Registry, typeName: string, withheld: ReadonlySet<string>): string[] {
  return Object.entries(registry.types[typeName]?.guardedProperties ?? {}).filter(([, code]) => withheld.has(code)).map(([property]) => property);
}
