/**
 * The exact fields' values as the embedded index compares them: the numbers of integers and
 * dates (a run of years stands for each year in it), the collation key of other values.
 */
import { collationKey, type FieldKind } from '../fields';
import { resolveDateMath } from '../query';
import { runBounds } from './doc-sets';
import type { ValueCodec } from './doc-values';

/** Longer values are cut for exact matching (long text is searched through FTS). */
export const MAX_VALUE = 1000;

/** Sort keys are compared on their first characters. */
export const MAX_KEY = 200;

/** The number an int or date value stands for (a date: its time in ms; date math resolved), or undefined. */
export function numberOf(kind: string, value: string): number | undefined {
  if (kind === 'int') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  const iso = resolveDateMath(value) ?? value;
  const ms = Date.parse(/^\d{4}(-\d{2}){0,2}$/.test(iso) ? `${iso}${iso.length === 4 ? '-01-01' : iso.length === 7 ? '-01' : ''}T00:00:00Z` : iso);
  return Number.isFinite(ms) ? ms : undefined;
}

/** How a column of a field of this kind keeps its values' numbers and keys (doc-values.ts). */
export function codecFor(kind: FieldKind): ValueCodec {
  const numeric = kind === 'int' || kind === 'date';
  return {
    span: (v) => {
      if (!numeric) return undefined;
      const run = kind === 'int' ? runBounds(v) : undefined;
      if (run) return run;
      const n = numberOf(kind, v);
      return n === undefined ? undefined : [n, n];
    },
    key: (v) => (kind === 'boolean' || numeric ? v : collationKey(v).slice(0, MAX_KEY)),
  };
}
