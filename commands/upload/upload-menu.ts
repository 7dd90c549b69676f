/**
 * The "Upload to board" message menu (issue 22 §2): the first image of a message, uploaded to the view's
 * site with the member's own key, the tags (and a source and description) typed in a form.
 *
 * - The form opens as the menu's first answer (`form`, src/discord/contract.ts `FormOpener`), and only after
 *   the checks that need nothing typed: the message has an image, uploads are on, the member has a key, the
 *   caps leave room. So nobody types for nothing; a refusal is the answer instead of the form.
 * - The image's link travels to the form's submit through the button state (src/discord/button-state.ts,
 *   with the site and the member it is for), never in a custom id, which holds only the state's token.
 * - When the form could not open in time the runtime runs `execute`, which makes the same checks and, when
 *   all is fine, asks the member to try again.
 * - The submit runs the same upload as `/upload` (upload-send.ts).
 */
import {
  ApplicationCommandType,
  ComponentType,
  ContextMenuCommandBuilder,
  TextInputStyle,
  type APIModalInteractionResponseCallbackData,
  type Message,
  type MessageContextMenuCommandInteraction,
} from 'discord.js';
import { z } from 'zod';
import type { Incoming } from '../../src/discord/contract.js';
import { buttonCodec, segment } from '../../src/discord/custom-id.js';
import { RUNTIME_ERROR_IDS, UserFacingError } from '../../src/discord/failures.js';
import type { Site } from '../../src/philomena/sites.js';
import {
  type Command,
  type CommandContext,
  LOOKUP_CONTEXTS,
  LOOKUP_INSTALLS,
  type ModalHandler,
} from '../shared/context.js';
import { sayIn, type Say } from '../shared/say.js';
import { minimumTags, URL_MAX } from './upload-input.js';
import { capError, memberKeyForUpload, upload, type UploadFeature } from './upload-send.js';

/** Discord's bounds on a modal: title and label 45 characters, a label's description 100, a text 4,000. */
const TITLE_MAX = 45;
const LABEL_MAX = 45;
const DESCRIPTION_MAX = 100;
const TEXT_MAX = 4_000;
const FIELDS = { tags: 'tags', source: 'source', description: 'description' } as const;

/** `upld:form:<state token>`: the form's submit. */
const formCodec = buttonCodec<'form', { readonly token: string }>({
  namespace: 'upld',
  schema: z.tuple([segment.token]).transform(([token]) => ({ token })),
  write: ({ token }) => [token],
});

const STATE_KIND = 'upload-form';
const stateSchema = z.object({ url: z.string().max(URL_MAX), site: z.string().max(200), owner: z.string() });

type TargetMessage = Pick<Message, 'attachments' | 'embeds'>;

/** The first image of a message: an image or video attachment, else an embed's image, thumbnail or video. */
function firstImageOf(message: TargetMessage): string | undefined {
  const attachment = message.attachments.find((a) => /^(image|video)\//i.test(a.contentType ?? ''));
  if (attachment !== undefined) return attachment.url;
  for (const embed of message.embeds) {
    for (const url of [embed.image?.url, embed.thumbnail?.url, embed.video?.url]) {
      if (url !== undefined && /^https?:\/\//i.test(url)) return url;
    }
  }
  return undefined;
}

function noImage(): UserFacingError {
  return new UserFacingError('upload.no-image', 'That message has no image to upload.');
}

/** Every check that needs nothing typed; the image's link when all pass. */
async function checksBeforeTyping(
  interaction: Incoming<MessageContextMenuCommandInteraction>,
  context: CommandContext,
  feature: UploadFeature,
): Promise<string> {
  const url = firstImageOf(interaction.targetMessage);
  if (url === undefined || url.length > URL_MAX) throw noImage();
  const site = context.view.site;
  await memberKeyForUpload(interaction.user.id, site, context, feature);
  const refusal = await feature.caps.check(interaction.user.id, site.id).catch(() => undefined);
  if (refusal !== undefined) throw capError(refusal, site);
  return url;
}

/** The form, in the member's language. */
function uploadForm(token: string, site: Site, say: Say): APIModalInteractionResponseCallbackData {
  const field = (
    id: string,
    label: string,
    description: string,
    style: TextInputStyle,
    required: boolean,
    max: number,
  ) => ({
    type: ComponentType.Label as const,
    label: label.slice(0, LABEL_MAX),
    description: description.slice(0, DESCRIPTION_MAX),
    component: {
      type: ComponentType.TextInput as const,
      custom_id: id,
      style,
      required,
      ...(required ? { min_length: 1 } : {}),
      max_length: max,
    },
  });
  return {
    custom_id: formCodec.encode('form', { token }),
    title: say('upload.form.title', { site: site.name }).slice(0, TITLE_MAX),
    components: [
      field(
        FIELDS.tags,
        say('upload.form.tags'),
        say('upload.form.tags-hint', { count: minimumTags(site) }),
        TextInputStyle.Paragraph,
        true,
        TEXT_MAX,
      ),
      field(
        FIELDS.source,
        say('upload.form.source'),
        say('upload.form.source-hint'),
        TextInputStyle.Short,
        false,
        URL_MAX,
      ),
      field(
        FIELDS.description,
        say('upload.form.description'),
        say('upload.form.description-hint'),
        TextInputStyle.Paragraph,
        false,
        TEXT_MAX,
      ),
    ],
  };
}

const formGone = () => new UserFacingError(RUNTIME_ERROR_IDS.formGone, 'This form no longer works.');

export function createUploadMenuCommand(feature: UploadFeature): Command {
  const submit: ModalHandler = {
    defer: () => 'ephemeral',
    async run(interaction, args, context) {
      const token = formCodec.decode(args)?.token;
      const state = token === undefined ? undefined : await context.state.get(STATE_KIND, token, stateSchema);
      // Only the member the form was opened for may send it; a stale form says so.
      if (state === undefined || state.owner !== interaction.user.id) throw formGone();
      const site = context.sites.byId(state.site);
      if (site === undefined) throw formGone();
      const text = (id: string) => interaction.fields.getTextInputValue(id);
      return upload(
        interaction.user.id,
        site,
        {
          url: state.url,
          tags: text(FIELDS.tags),
          source: text(FIELDS.source),
          description: text(FIELDS.description),
        },
        context,
        feature,
      );
    },
  };
  return {
    kind: 'message',
    data: new ContextMenuCommandBuilder()
      .setName('Upload to board')
      .setType(ApplicationCommandType.Message)
      .setIntegrationTypes(LOOKUP_INSTALLS)
      .setContexts(LOOKUP_CONTEXTS)
      .toJSON(),
    ephemeral: () => true,
    async form(interaction, context) {
      const url = await checksBeforeTyping(interaction, context, feature);
      const site = context.view.site;
      const token = await context.state.put(STATE_KIND, { url, site: site.id, owner: interaction.user.id });
      return uploadForm(token, site, sayIn(context.locale));
    },
    async execute(interaction, context) {
      await checksBeforeTyping(interaction, context, feature);
      throw new UserFacingError('upload.form-late', 'The form could not open in time: try again.');
    },
    modals: { [formCodec.key('form')]: submit },
  };
}
