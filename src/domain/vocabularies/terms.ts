import type { Subject, Term as TermRecord } from '../../../generated/types';
import { errors } from '../../errors';
import type { Obj } from '../../json';
import { keptUntilNextWrite } from '../../store/until-next-write';
import type { Services } from '../../records/context';
import { hasRecord, jsonOfType } from '../../store/domain-reads';

/**
 * Terms (GET /vocabularies/:id/terms, GET /terms?q=): here a term lives inside the subjects that
 * use it, without an id of its own, so the routes answer the distinct terms of the subjects
 * (vocabulary, term, term type), as term records without a `uri`. Read from the subjects once and
 * kept until the next write.
 */

/** A term as the routes answer it: the schema's term, its type named, without a `uri`. */
export type Term = Required<Pick<TermRecord, 'jsonmodel_type' | 'term' | 'term_type' | 'vocabulary'>>;

const TERMS_PAGE = 20;

async function allTerms(s: Services): Promise<Term[]> {
  return keptUntilNextWrite(s, 'terms', async () => {
    const seen = new Map<string, Term>();
    for (const json of await jsonOfType(s.db, 'subject')) {
      const subject = JSON.parse(json) as Subject;
      for (const t of Array.isArray(subject.terms) ? subject.terms : []) {
        // A stored subject embeds its terms; a term's URI in its place names no words.
        if (typeof t !== 'object' || typeof t?.term !== 'string') continue;
        const term: Term = { jsonmodel_type: 'term', term: t.term, term_type: String(t.term_type ?? ''), vocabulary: String(t.vocabulary ?? subject.vocabulary ?? '') };
        seen.set(JSON.stringify([term.vocabulary, term.term, term.term_type]), term);
      }
    }
    return [...seen.values()].sort((a, b) => a.term.localeCompare(b.term, 'en', { sensitivity: 'base' }) || a.term_type.localeCompare(b.term_type));
  }, (terms) => 1 + (terms.length >> 4));
}

/** GET /vocabularies/:id/terms: the vocabulary's terms, as a plain array. */
export async function vocabularyTerms(s: Services, vocabularyId: number): Promise<Term[]> {
  const uri = `/vocabularies/${vocabularyId}`;
  if (!(await hasRecord(s.db, { uri, type: 'vocabulary' }))) throw errors.notFound('Vocabulary');
  return (await allTerms(s)).filter((t) => t.vocabulary === uri);
}

/**
 * GET /terms?q=: the terms starting with `q` (case-insensitive, `%` ignored), at most 20, in the
 * page shape the original meant to answer (its handler fails with 500).
 */
export async function termsStartingWith(s: Services, q: string): Promise<Obj> {
  const prefix = q.replace(/%/g, '').toLowerCase();
  const results = (await allTerms(s)).filter((t) => t.term.toLowerCase().startsWith(prefix)).slice(0, TERMS_PAGE);
  return { first_page: 1, last_page: 1, this_page: 1, total: results.length, results };
}
