import type { Config } from '../config';
import type { ParamSpec } from './endpoint';

/** page_size of listings and searches: a whole number of at least 1 (0, negative or not a number: 400). */
export const PAGE_SIZE_PARAM: ParamSpec = { name: 'page_size', type: 'integer', check: (v: number) => (v >= 1 ? undefined : `must be a positive integer but given: ${v}`) };

/**
 * The one paging rule for listings and searches: no page_size gives DEFAULT_PAGE_SIZE, and one
 * above MAX_PAGE_SIZE is reduced to it silently, as the reference does (pagination-and-resolve.md).
 */
export function pageSize(config: Config, requested: number | undefined): number {
  return Math.min(requested ?? config.defaultPageSize, config.maxPageSize);
}

