/** Profiles (users) by id, with https avatars and award images, and the gallery search. */
import type { PhilomenaClient } from '../types.js';
import { galleriesResponseSchema, userResponseSchema } from '../../schemas.js';
import { absolutiseUser } from '../../urls.js';
import { API, page, type Engine } from '../engine.js';
import { pageQuery, positiveInt, text } from '../params.js';

export function profileEndpoints(engine: Engine): Pick<PhilomenaClient, 'profile' | 'searchGalleries'> {
  const { site, lifetimes, call } = engine;
  return {
    async profile(id, callOptions = {}) {
      positiveInt('profile id', id);
      return call(
        {
          resource: 'profile',
          what: `profile ${id}`,
          path: `${API}/profiles/${id}`,
          auth: false,
          schema: userResponseSchema,
          map: (body) => absolutiseUser(body.user, site),
          ttlMs: lifetimes.profile,
        },
        callOptions,
      );
    },

    async searchGalleries(callOptions) {
      return call(
        {
          resource: 'galleries',
          what: 'the gallery search',
          path: `${API}/search/galleries`,
          query: { q: text('q', callOptions.q), ...pageQuery(callOptions) },
          auth: false,
          schema: galleriesResponseSchema,
          map: (body) => page(body.galleries, body.total),
          ttlMs: lifetimes.gallerySearch,
        },
        callOptions,
      );
    },
  };
}
