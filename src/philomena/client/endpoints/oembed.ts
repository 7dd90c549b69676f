/** oEmbed of an image page URL: cached for the `cache_age` the board gives. */
import type { PhilomenaClient } from '../types.js';
import { oembedSchema, type OEmbed } from '../../schemas.js';
import { httpsUrl, sourceLink } from '../../urls.js';
import { API, type Engine } from '../engine.js';
import { text } from '../params.js';

export function oembedEndpoints(engine: Engine): Pick<PhilomenaClient, 'oembed'> {
  const { site, call } = engine;
  return {
    async oembed(url, callOptions = {}) {
      const target = text('url', url).trim();
      if (target === '') throw new RangeError('url must not be empty');
      return call(
        {
          resource: 'oembed',
          what: 'the oEmbed of that URL',
          path: `${API}/oembed`,
          query: { url: target },
          auth: false,
          schema: oembedSchema,
          map: (body): OEmbed => ({
            ...body,
            author_url: sourceLink(body.author_url),
            thumbnail_url: httpsUrl(body.thumbnail_url, site),
            url: httpsUrl(body.url, site),
            provider_url: httpsUrl(body.provider_url, site) ?? site.baseUrl,
          }),
          ttlMs: (value) => value.cache_age * 1000,
        },
        callOptions,
      );
    },
  };
}
