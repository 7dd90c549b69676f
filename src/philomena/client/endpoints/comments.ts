/** Comments on images and forum posts: one by id, and their searches. Avatars are made https. */
import type { PhilomenaClient } from '../types.js';
import {
  commentResponseSchema,
  commentsResponseSchema,
  postResponseSchema,
  postsResponseSchema,
} from '../../schemas.js';
import { absolutiseAvatar } from '../../urls.js';
import { API, page, type Engine } from '../engine.js';
import { pageQuery, positiveInt, text } from '../params.js';

export function commentEndpoints(
  engine: Engine,
): Pick<PhilomenaClient, 'comment' | 'searchComments' | 'post' | 'searchPosts'> {
  const { site, lifetimes, call } = engine;
  return {
    async comment(id, callOptions = {}) {
      positiveInt('comment id', id);
      return call(
        {
          resource: 'comment',
          what: `comment ${id}`,
          path: `${API}/comments/${id}`,
          auth: false,
          schema: commentResponseSchema,
          map: (body) => absolutiseAvatar(body.comment, site),
          ttlMs: lifetimes.comment,
        },
        callOptions,
      );
    },

    async searchComments(callOptions) {
      return call(
        {
          resource: 'comments',
          what: 'the comment search',
          path: `${API}/search/comments`,
          query: { q: text('q', callOptions.q), ...pageQuery(callOptions) },
          auth: false,
          schema: commentsResponseSchema,
          map: (body) =>
            page(
              body.comments.map((c) => absolutiseAvatar(c, site)),
              body.total,
            ),
          ttlMs: lifetimes.commentSearch,
        },
        callOptions,
      );
    },

    async post(id, callOptions = {}) {
      positiveInt('post id', id);
      return call(
        {
          resource: 'post',
          what: `post ${id}`,
          path: `${API}/posts/${id}`,
          auth: false,
          schema: postResponseSchema,
          map: (body) => absolutiseAvatar(body.post, site),
          ttlMs: lifetimes.post,
        },
        callOptions,
      );
    },

    async searchPosts(callOptions) {
      return call(
        {
          resource: 'posts',
          what: 'the post search',
          path: `${API}/search/posts`,
          query: { q: text('q', callOptions.q), ...pageQuery(callOptions) },
          auth: false,
          schema: postsResponseSchema,
          map: (body) =>
            page(
              body.posts.map((p) => absolutiseAvatar(p, site)),
              body.total,
            ),
          ttlMs: lifetimes.postSearch,
        },
        callOptions,
      );
    },
  };
}
