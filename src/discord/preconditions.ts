/**
 * What a command requires before it runs, declared on the command (`requires`) and checked by the router in
 * one place, after the deferral (so a refusal is as private as the command's answer) and before the
 * features' context is built or the command runs. Sapphire's preconditions are the model: named
 * requirements, each with a refusal that has a stable identifier.
 *
 * Discord's own `default_member_permissions` hides a command from members without the permission, but a
 * server can override it: this check is the one that holds.
 */
import type { Interaction, PermissionsBitField } from 'discord.js';
import { RUNTIME_ERROR_IDS, UserFacingError } from './failures.js';

/** What a member reads when a requirement is not met, under its identifier. */
interface Refusal {
  readonly id: string;
  readonly text: string;
}

/**
 * A command's requirements, by name. A new kind of requirement (a linked board account) is a new name
 * here and a new entry in `CHECKS`; the record keeps each command's declaration readable.
 */
export interface Requirements {
  /** Used in a server, not in a DM or a group DM. */
  readonly guild?: true;
  /** The member holds every one of these permissions (`PermissionFlagsBits`, OR-ed) where they ran it. */
  readonly memberPermissions?: bigint;
  /** The command's own words for a refusal, by requirement; else the runtime's general ones. */
  readonly refusals?: { readonly [K in RequirementName]?: Refusal };
}

type RequirementName = 'guild' | 'memberPermissions';

/** What a requirement check may read of an interaction (so autocomplete and commands share it). */
type Requirable = Pick<Interaction, 'guildId'> & {
  readonly memberPermissions: Readonly<PermissionsBitField> | null;
};

const DEFAULT_REFUSALS: { readonly [K in RequirementName]: Refusal } = {
  guild: { id: RUNTIME_ERROR_IDS.guildOnly, text: 'This command works only in a server.' },
  memberPermissions: {
    id: RUNTIME_ERROR_IDS.memberPermissions,
    text: 'You do not have the permission this command needs.',
  },
};

/** Each requirement's check, in the order they are asked (a DM fails on `guild` before permissions). */
const CHECKS: {
  readonly [K in RequirementName]: (interaction: Requirable, requires: Requirements) => boolean;
} = {
  guild: (interaction, requires) => requires.guild !== true || interaction.guildId !== null,
  memberPermissions: (interaction, { memberPermissions }) =>
    memberPermissions === undefined || interaction.memberPermissions?.has(memberPermissions) === true,
};

const ORDER: readonly RequirementName[] = ['guild', 'memberPermissions'];

/** The first requirement `interaction` does not meet, as the error to answer with; undefined when all are. */
export function refusalOf(
  interaction: Requirable,
  requires: Requirements | undefined,
): UserFacingError | undefined {
  if (requires === undefined) return undefined;
  for (const name of ORDER) {
    if (CHECKS[name](interaction, requires)) continue;
    const refusal = requires.refusals?.[name] ?? DEFAULT_REFUSALS[name];
    return new UserFacingError(refusal.id, refusal.text);
  }
  return undefined;
}

/**
 * The server of an interaction whose command requires one (`requires.guild`): the runtime refused it
 * elsewhere, so a missing server here is a bug, not a member's doing.
 */
export function requiredGuildId(interaction: Pick<Interaction, 'guildId'>): string {
  if (interaction.guildId === null) throw new Error('a command that requires a server ran outside one');
  return interaction.guildId;
}
