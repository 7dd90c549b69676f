/**
 * Reading a message's component tree in tests, Components V2 ones included (containers, sections, text
 * displays, media galleries ...). Every function takes what has `components` (and `flags`): a
 * RecordedMessage of the fake, a message as REST or the gateway sends it (APIMessage JSON), or the bare
 * array of components. The walk is depth-first in the order Discord shows them: a component, then its
 * `components`, then a section's `accessory`.
 */

/** IS_COMPONENTS_V2 (1 << 15). */
export const IS_COMPONENTS_V2 = 1 << 15;

/** What has a component tree: a RecordedMessage, APIMessage JSON, a MessageCreate body ... */
export interface HasComponents {
  readonly components?: readonly unknown[] | undefined;
  readonly flags?: number | undefined;
}

export type ComponentSource = HasComponents | readonly unknown[];

/** One component as sent: `type` plus whatever its kind holds. */
export type ComponentJson = Record<string, unknown> & { readonly type: number };

/** A media gallery item as sent: `media.url`, optional description and spoiler. */
export interface GalleryItem {
  readonly media: { readonly url: string } & Record<string, unknown>;
  readonly description?: string | null;
  readonly spoiler?: boolean;
}

const TEXT_DISPLAY = 10;
const MEDIA_GALLERY = 12;

function rootOf(source: ComponentSource): readonly unknown[] {
  return Array.isArray(source) ? source : ((source as HasComponents).components ?? []);
}

const isComponent = (value: unknown): value is ComponentJson =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Record<string, unknown>)['type'] === 'number';

/** Does the message carry IS_COMPONENTS_V2? */
export function isComponentsV2(message: HasComponents): boolean {
  return ((message.flags ?? 0) & IS_COMPONENTS_V2) !== 0;
}

/** Every component of the tree, depth-first (a section's accessory after its texts). */
export function allComponents(source: ComponentSource): ComponentJson[] {
  const out: ComponentJson[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const child of value) visit(child);
      return;
    }
    if (!isComponent(value)) return;
    out.push(value);
    visit(value['components']);
    visit(value['accessory']);
  };
  visit(rootOf(source));
  return out;
}

/** The components of one type (discord.js's `ComponentType`, e.g. 17 containers), depth-first. */
export function componentsOfType(source: ComponentSource, type: number): ComponentJson[] {
  return allComponents(source).filter((c) => c.type === type);
}

/** The contents of every text display, depth-first, joined by "\n". */
export function textOf(source: ComponentSource): string {
  return componentsOfType(source, TEXT_DISPLAY)
    .map((c) => (typeof c['content'] === 'string' ? c['content'] : ''))
    .join('\n');
}

/** Every item of every media gallery, depth-first. */
export function galleryItemsOf(source: ComponentSource): GalleryItem[] {
  return componentsOfType(source, MEDIA_GALLERY).flatMap((gallery) =>
    Array.isArray(gallery['items']) ? (gallery['items'] as GalleryItem[]) : [],
  );
}

/** How many components Discord counts against its limit of 40 (every node; gallery items are not). */
export function componentCount(source: ComponentSource): number {
  return allComponents(source).length;
}

/** The characters of all text displays together (Discord allows 4,000), counted in code points. */
export function textLength(source: ComponentSource): number {
  return componentsOfType(source, TEXT_DISPLAY).reduce(
    (sum, c) => sum + (typeof c['content'] === 'string' ? [...c['content']].length : 0),
    0,
  );
}

/** Every custom_id in the tree (buttons, selects, a section's button), depth-first. */
export function customIdsOf(source: ComponentSource): string[] {
  return allComponents(source).flatMap((c) => (typeof c['custom_id'] === 'string' ? [c['custom_id']] : []));
}

/** The component with this custom_id, wherever it is nested. */
export function componentWithCustomId(source: ComponentSource, customId: string): ComponentJson | undefined {
  return allComponents(source).find((c) => c['custom_id'] === customId);
}
