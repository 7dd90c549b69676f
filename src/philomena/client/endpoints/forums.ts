/**
 * Forums, their topics and the posts of a topic. Forum and topic names are caller text, sent as one path
 * segment each (`params.segment`: a lone surrogate becomes U+FFFD, never a URIError).
 */
import type { PhilomenaClient } from '../types.js';
import {
  forumResponseSchema,
  forumsResponseSchema,
  postResponseSchema,
  postsResponseSchema,
  topicResponseSchema,
  topicsResponseSchema,
} from '../../schemas.js';
import { absolutiseAvatar } from '../../urls.js';
import { API, page, type Engine } from '../engine.js';
import { pageQuery, positiveInt, segment } from '../params.js';

export function forumEndpoints(
  engine: Engine,
): Pick<PhilomenaClient, 'forums' | 'forum' | 'topics' | 'topic' | 'topicPosts' | 'topicPost'> {
  const { site, lifetimes, call } = engine;
  return {
    async forums(callOptions = {}) {
      return call(
        {
          resource: 'forums',
          what: 'the forums',
          path: `${API}/forums`,
          auth: false,
          schema: forumsResponseSchema,
          map: (body) => page(body.forums, body.total),
          ttlMs: lifetimes.forums,
        },
        callOptions,
      );
    },

    async forum(shortName, callOptions = {}) {
      const forum = segment('forum', shortName);
      return call(
        {
          resource: 'forum',
          what: `forum ${shortName}`,
          path: `${API}/forums/${forum}`,
          auth: false,
          schema: forumResponseSchema,
          map: (body) => body.forum,
          ttlMs: lifetimes.forum,
        },
        callOptions,
      );
    },

    async topics(forumName, callOptions = {}) {
      const forum = segment('forum', forumName);
      return call(
        {
          resource: 'topics',
          what: `the topics of forum ${forumName}`,
          path: `${API}/forums/${forum}/topics`,
          query: pageQuery(callOptions),
          auth: false,
          schema: topicsResponseSchema,
          map: (body) => page(body.topics, body.total),
          ttlMs: lifetimes.topics,
        },
        callOptions,
      );
    },

    async topic(forumName, topicSlug, callOptions = {}) {
      const forum = segment('forum', forumName);
      const topic = segment('topic', topicSlug);
      return call(
        {
          resource: 'topic',
          what: `topic ${topicSlug}`,
          path: `${API}/forums/${forum}/topics/${topic}`,
          auth: false,
          schema: topicResponseSchema,
          map: (body) => body.topic,
          ttlMs: lifetimes.topic,
        },
        callOptions,
      );
    },

    async topicPosts(forumName, topicSlug, callOptions = {}) {
      const forum = segment('forum', forumName);
      const topic = segment('topic', topicSlug);
      return call(
        {
          resource: 'topic-posts',
          what: `the posts of topic ${topicSlug}`,
          path: `${API}/forums/${forum}/topics/${topic}/posts`,
          query: pageQuery(callOptions),
          auth: false,
          schema: postsResponseSchema,
          map: (body) =>
            page(
              body.posts.map((p) => absolutiseAvatar(p, site)),
              body.total,
            ),
          ttlMs: lifetimes.topicPosts,
        },
        callOptions,
      );
    },

    async topicPost(forumName, topicSlug, postId, callOptions = {}) {
      const forum = segment('forum', forumName);
      const topic = segment('topic', topicSlug);
      positiveInt('post id', postId);
      return call(
        {
          resource: 'topic-post',
          what: `post ${postId}`,
          path: `${API}/forums/${forum}/topics/${topic}/posts/${postId}`,
          auth: false,
          schema: postResponseSchema,
          map: (body) => absolutiseAvatar(body.post, site),
          ttlMs: lifetimes.post,
        },
        callOptions,
      );
    },
  };
}
