/** Tags: one by name or slug (following aliases), and the tag search that autocomplete uses. */
import type { CallOptions, PhilomenaClient } from '../types.js';
import { InvalidResponseError, NotFoundError } from '../../errors.js';
import { tagResponseSchema, tagsResponseSchema, type Tag } from '../../schemas.js';
import { tagPath, tagSlug } from '../../tags.js';
import { absolutiseTag } from '../../urls.js';
import { API, page, type Engine } from '../engine.js';
import { pageQuery, text } from '../params.js';

export function tagEndpoints(engine: Engine): Pick<PhilomenaClient, 'tag' | 'searchTags'> {
  const { site, lifetimes, call } = engine;

  async function tagBySlugPath(encoded: string, callOptions: CallOptions): Promise<Tag> {
    return call(
      {
        resource: 'tag',
        what: `tag ${decodeURIComponent(encoded)}`,
        path: `${API}/tags/${encoded}`,
        auth: false,
        schema: tagResponseSchema,
        map: (body) => absolutiseTag(body.tag, site),
        ttlMs: lifetimes.tag,
      },
      callOptions,
    );
  }

  return {
    async tag(nameOrSlug, callOptions = {}) {
      const input = text('tag', nameOrSlug).trim();
      if (input === '') throw new RangeError('the tag name must not be empty');
      const primary = tagPath(input);
      let tag: Tag;
      try {
        tag = await tagBySlugPath(primary, callOptions);
      } catch (error) {
        // A name that happens to look like a slug (`c++`) was read as one: try it as a name.
        const alternate = tagPath(tagSlug(input));
        if (!(error instanceof NotFoundError) || alternate === primary) throw error;
        tag = await tagBySlugPath(alternate, callOptions);
      }
      if (callOptions.followAlias === false) return tag;
      const seen = new Set<string>([tag.slug]);
      while (tag.aliased_tag !== null && tag.aliased_tag !== '') {
        if (seen.has(tag.aliased_tag) || seen.size > 5) {
          throw new InvalidResponseError(
            `${site.name} has an alias loop at tag ${tag.name}`,
            'tag.aliased_tag',
            engine.context(`${API}/tags/${tagPath(tag.aliased_tag)}`),
          );
        }
        seen.add(tag.aliased_tag);
        tag = await tagBySlugPath(tagPath(tag.aliased_tag), callOptions);
      }
      return tag;
    },

    async searchTags(callOptions) {
      return call(
        {
          resource: 'tags',
          what: 'the tag search',
          path: `${API}/search/tags`,
          query: { q: text('q', callOptions.q), ...pageQuery(callOptions) },
          auth: false,
          schema: tagsResponseSchema,
          map: (body) =>
            page(
              body.tags.map((tag) => absolutiseTag(tag, site)),
              body.total,
            ),
          ttlMs: lifetimes.tagSearch,
        },
        callOptions,
      );
    },
  };
}
