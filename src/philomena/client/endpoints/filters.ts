/**
 * Filters: by id, the system filters, the filter search (all anonymous), and the key owner's own filters,
 * the one read that carries the key.
 */
import type { PhilomenaClient } from '../types.js';
import { filterResponseSchema, filtersResponseSchema } from '../../schemas.js';
import { API, page, type Engine } from '../engine.js';
import { pageQuery, positiveInt, text } from '../params.js';

export function filterEndpoints(
  engine: Engine,
): Pick<PhilomenaClient, 'filter' | 'systemFilters' | 'userFilters' | 'searchFilters'> {
  const { lifetimes, call } = engine;
  return {
    async filter(id, callOptions = {}) {
      positiveInt('filter id', id);
      return call(
        {
          resource: 'filter',
          what: `filter ${id}`,
          path: `${API}/filters/${id}`,
          auth: false,
          schema: filterResponseSchema,
          map: (body) => body.filter,
          ttlMs: lifetimes.filter,
        },
        callOptions,
      );
    },

    async systemFilters(callOptions = {}) {
      return call(
        {
          resource: 'system-filters',
          what: 'the system filters',
          path: `${API}/filters/system`,
          query: pageQuery(callOptions),
          auth: false,
          schema: filtersResponseSchema,
          map: (body) => page(body.filters, body.total),
          ttlMs: lifetimes.systemFilters,
        },
        callOptions,
      );
    },

    async userFilters(callOptions = {}) {
      engine.requireKey("listing the key owner's filters");
      return call(
        {
          resource: 'user-filters',
          what: 'your filters',
          path: `${API}/filters/user`,
          query: pageQuery(callOptions),
          auth: true,
          schema: filtersResponseSchema,
          map: (body) => page(body.filters, body.total),
          ttlMs: lifetimes.userFilters,
        },
        callOptions,
      );
    },

    async searchFilters(callOptions) {
      return call(
        {
          resource: 'filters',
          what: 'the filter search',
          path: `${API}/search/filters`,
          query: { q: text('q', callOptions.q), ...pageQuery(callOptions) },
          auth: false,
          schema: filtersResponseSchema,
          map: (body) => page(body.filters, body.total),
          ttlMs: lifetimes.filterSearch,
        },
        callOptions,
      );
    },
  };
}
