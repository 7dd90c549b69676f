/**
 * A command's options as Discord sends them: values typed from the registered command (or inferred),
 * nested in their subcommand and group; `data.resolved` for user, channel, role and mentionable options
 * (channel refs turned into ids); attachment options with the files the fake serves for them.
 */
import { ApplicationCommandOptionType } from 'discord.js';
import {
  USER_INSTALL_APP_PERMISSION_MASK,
  botChannelPermissions,
  dmChannelPayload,
  memberPayload,
  memberPermissions,
  partialChannelPayload,
  privateChannelPayload,
  rolesPayload,
  userOf,
  userPayload,
} from '../payloads.js';
import type { StoredCommand } from '../state.js';
import type { Place, Scenario } from './context.js';
import type { AttachmentInput, InteractionOption, OptionValues } from './types.js';

/** Definitions of the options at the level the values go (inside subcommand/group when given). */
function optionDefinitions(
  command: StoredCommand | undefined,
  group: string | undefined,
  sub: string | undefined,
): Record<string, unknown>[] {
  const list = (value: unknown): Record<string, unknown>[] =>
    Array.isArray(value)
      ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null)
      : [];
  let level = list(command?.['options']);
  for (const name of [group, sub]) {
    if (name === undefined) continue;
    level = list(level.find((o) => o['name'] === name)?.['options']);
  }
  return level;
}

function inferType(value: string | number | boolean): number {
  if (typeof value === 'boolean') return ApplicationCommandOptionType.Boolean;
  if (typeof value === 'number') {
    return Number.isInteger(value)
      ? ApplicationCommandOptionType.Integer
      : ApplicationCommandOptionType.Number;
  }
  return ApplicationCommandOptionType.String;
}

export function buildOptions(
  command: StoredCommand | undefined,
  input: readonly InteractionOption[] | OptionValues | undefined,
  spec: { group?: string | undefined; sub?: string | undefined; focused?: string | undefined },
  attachmentOptions: InteractionOption[],
): InteractionOption[] {
  let leaf: InteractionOption[];
  if (Array.isArray(input)) {
    leaf = [...(input as readonly InteractionOption[])];
  } else {
    const defs = optionDefinitions(command, spec.group, spec.sub);
    leaf = Object.entries((input ?? {}) as OptionValues).map(([name, value]) => {
      const def = defs.find((d) => d['name'] === name);
      const type = typeof def?.['type'] === 'number' ? def['type'] : inferType(value);
      return { name, type, value, ...(spec.focused === name ? { focused: true } : {}) };
    });
  }
  leaf.push(...attachmentOptions);
  if (spec.sub !== undefined) {
    leaf = [{ name: spec.sub, type: ApplicationCommandOptionType.Subcommand, options: leaf }];
  }
  if (spec.group !== undefined) {
    leaf = [{ name: spec.group, type: ApplicationCommandOptionType.SubcommandGroup, options: leaf }];
  }
  return leaf;
}

export interface OptionData {
  /**
   * `data.resolved` for user, channel, role and mentionable options, as Discord sends it: users (and, in a
   * server, members without user, deaf and mute, with permissions), partial channels, roles. Channel
   * option values may be refs ('plain', 'threadInPlain' ...), turned into ids here.
   */
  resolveOptionData(data: Record<string, unknown>, place: Place, memberPerms: bigint, userId: string): void;
  /** Attachment options and their `resolved.attachments`; the files are served on the fake's CDN. */
  attachmentInputs(
    inputs: readonly AttachmentInput[] | undefined,
    channelId: string,
  ): { options: InteractionOption[]; resolved: Record<string, unknown> };
}

export function createOptionData(scenario: Scenario): OptionData {
  const { state, world, now, snowflake, channelIdOf, placeOf } = scenario;

  function resolveOptionData(
    data: Record<string, unknown>,
    place: Place,
    memberPerms: bigint,
    userId: string,
  ): void {
    const users: Record<string, unknown> = {};
    const members: Record<string, unknown> = {};
    const channels: Record<string, unknown> = {};
    const roles: Record<string, unknown> = {};
    const w = place.kind === 'guild' ? place.w : world;
    const roleList = place.kind === 'guild' ? rolesPayload(w) : [];
    const addUser = (userId: string): boolean => {
      users[userId] = userPayload(userOf(w, userId));
      if (place.kind === 'guild' && w.memberRoles.has(userId)) {
        const member = memberPayload(w, userId, { permissions: memberPermissions(w, userId) });
        for (const key of ['user', 'deaf', 'mute']) delete member[key];
        members[userId] = member;
      }
      return true;
    };
    const addRole = (roleId: string): boolean => {
      const role = roleList.find((r) => r['id'] === roleId);
      if (role === undefined) return false;
      roles[roleId] = role;
      return true;
    };
    const walk = (options: unknown): unknown =>
      !Array.isArray(options)
        ? options
        : options.map((raw: unknown) => {
            if (typeof raw !== 'object' || raw === null) return raw;
            const option = { ...(raw as Record<string, unknown>) };
            if (Array.isArray(option['options'])) option['options'] = walk(option['options']);
            const value = option['value'];
            if (typeof value !== 'string' || option['focused'] === true) return option;
            switch (option['type']) {
              case ApplicationCommandOptionType.User:
                addUser(value);
                break;
              case ApplicationCommandOptionType.Role:
                addRole(value);
                break;
              case ApplicationCommandOptionType.Mentionable:
                if (!addRole(value)) addUser(value);
                break;
              case ApplicationCommandOptionType.Channel: {
                let channelId: string;
                try {
                  channelId = channelIdOf(value);
                } catch {
                  break; // A channel the fake does not know: left unresolved.
                }
                option['value'] = channelId;
                const target = placeOf(channelId);
                if (target.kind === 'guild') {
                  channels[channelId] = partialChannelPayload(target.w, target.channel, now, {
                    permissions: memberPerms,
                    appPermissions: target.w.botIsMember
                      ? botChannelPermissions(target.w, channelId)
                      : memberPerms & USER_INSTALL_APP_PERMISSION_MASK,
                  });
                } else if (target.kind === 'botDm') {
                  channels[channelId] = dmChannelPayload(world);
                } else {
                  channels[channelId] = privateChannelPayload(world, target.channel, userId);
                }
                break;
              }
              default:
                break;
            }
            return option;
          });
    data['options'] = walk(data['options']);
    const resolved: Record<string, unknown> = {
      ...(typeof data['resolved'] === 'object' && data['resolved'] !== null
        ? (data['resolved'] as Record<string, unknown>)
        : {}),
    };
    if (Object.keys(users).length > 0) resolved['users'] = users;
    if (Object.keys(members).length > 0) resolved['members'] = members;
    if (Object.keys(channels).length > 0) resolved['channels'] = channels;
    if (Object.keys(roles).length > 0) resolved['roles'] = roles;
    if (Object.keys(resolved).length > 0) data['resolved'] = resolved;
  }

  function attachmentInputs(
    inputs: readonly AttachmentInput[] | undefined,
    channelId: string,
  ): { options: InteractionOption[]; resolved: Record<string, unknown> } {
    const resolved: Record<string, unknown> = {};
    const optionsOut: InteractionOption[] = [];
    for (const input of inputs ?? []) {
      const id = snowflake();
      const contentType = input.contentType ?? 'image/png';
      const cdnPath = `/cdn/attachments/${channelId}/${id}/${encodeURIComponent(input.filename)}`;
      const data = input.data === undefined ? undefined : Buffer.from(input.data);
      if (data !== undefined && input.url === undefined) state.files.set(cdnPath, { data, contentType });
      const url = input.url ?? `${state.baseUrl}${cdnPath}`;
      resolved[id] = {
        id,
        filename: input.filename,
        size: input.size ?? data?.length ?? 0,
        url,
        proxy_url: url,
        content_type: contentType,
        ...(input.width === undefined ? {} : { width: input.width }),
        ...(input.height === undefined ? {} : { height: input.height }),
        ephemeral: true,
      };
      optionsOut.push({ name: input.option, type: ApplicationCommandOptionType.Attachment, value: id });
    }
    return { options: optionsOut, resolved };
  }

  return { resolveOptionData, attachmentInputs };
}
