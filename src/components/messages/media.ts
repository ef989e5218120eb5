/** IMAGE, AUDIO, VIDEO, DOCUMENT and FILE: players, a picture that opens larger, a file card. */
import { html, nothing, type TemplateResult } from 'lit';
import type {
  AudioMessage,
  DocumentMessage,
  FileMessage,
  ImageMessage,
  VideoMessage,
} from '../../../types/index.ts';
import { isServiceMedia } from '../../util/url.ts';
import { fileNameOf, plainName } from '../shared/format.ts';
import { icons } from '../shared/icons.ts';
import type { RenderContext } from './render-context.ts';
import { richText } from './text.ts';

/** Under "File unavailable" the caption is all that names the file: it reads as a file name (plainName). */
function unavailable(r: RenderContext, name?: string): TemplateResult {
  return html`<p class="media-unavailable">${icons.error()}<span>${r.t('unavailableMedia')}</span></p>
    ${caption(plainName(name))}`;
}

function caption(text: string | undefined, id?: string): TemplateResult | typeof nothing {
  return text ? html`<p class="caption" id=${id ?? nothing} dir="auto">${richText(text)}</p>` : nothing;
}

/**
 * A player's name: its kind, who sent it and the file's name when the address ends in one
 * ("Vídeo de Charla: charla.mp4"); an upload's address (a random key) names no file.
 */
function playerName(kind: 'audio' | 'video', m: AudioMessage | VideoMessage, r: RenderContext): string {
  const who = plainName(m.senderNames);
  const file = fileNameOf(m.mediaUrl ?? '');
  return `${who ? r.t('mediaFrom', { kind: r.t(kind), name: who }) : r.t(kind)}${/\.\w+$/.test(file) ? `: ${file}` : ''}`;
}

function openDialog(event: Event): void {
  const figure = (event.currentTarget as HTMLElement).closest('figure');
  figure?.querySelector('dialog')?.showModal();
}

function closeDialog(event: Event): void {
  (event.currentTarget as HTMLElement).closest('dialog')?.close();
}

/** The viewer fills the viewport: a click on the dialog itself (not its picture or button) is around the picture. */
function closeOnBackdrop(event: Event): void {
  if (event.target === event.currentTarget) (event.currentTarget as HTMLDialogElement).close();
}

export function renderImage(m: ImageMessage, r: RenderContext): TemplateResult {
  const src = r.media.src(m.mediaUrl);
  if (!src || r.media.failed(m.mediaUrl)) return unavailable(r, m.caption);
  // Named after its caption, when it has one: a list of images is not a list of the same name.
  // Its names, as the button's, without direction controls (the caption itself shows as written).
  const named = plainName(m.caption);
  const alt = named || r.t('image');
  const open = named ? r.t('openImageCaption', { caption: named }) : r.t('openImage');
  return html`<figure class="image">
    <button type="button" class="image__open" aria-label=${open} @click=${openDialog}>
      <img
        src=${src}
        alt=${alt}
        loading="lazy"
        referrerpolicy="no-referrer"
        @error=${(e: Event) => r.media.handleError(m.mediaUrl, e.currentTarget)}
      />
    </button>
    ${m.caption ? html`<figcaption class="caption" dir="auto">${richText(m.caption)}</figcaption>` : nothing}
    <dialog class="lightbox" aria-label=${alt} @click=${closeOnBackdrop}>
      <button
        type="button"
        class="icon-button lightbox__close"
        aria-label=${r.t('closeImage')}
        @click=${closeDialog}
      >
        ${icons.close()}
      </button>
      <img src=${src} alt=${alt} referrerpolicy="no-referrer" />
    </dialog>
  </figure>`;
}

export function renderAudio(m: AudioMessage, r: RenderContext): TemplateResult {
  const src = r.media.src(m.mediaUrl);
  if (!src || r.media.failed(m.mediaUrl)) return unavailable(r);
  return html`<audio
    class="audio"
    controls
    preload="metadata"
    src=${src}
    aria-label=${playerName('audio', m, r)}
    @error=${(e: Event) => r.media.handleError(m.mediaUrl, e.currentTarget)}
  ></audio>`;
}

export function renderVideo(m: VideoMessage, r: RenderContext): TemplateResult {
  const src = r.media.src(m.mediaUrl);
  if (!src || r.media.failed(m.mediaUrl)) return unavailable(r, m.caption);
  return html`<video
      class="video"
      controls
      playsinline
      preload="metadata"
      src=${src}
      aria-label=${playerName('video', m, r)}
      aria-describedby=${m.caption ? `caption-${m.id}` : nothing}
      @error=${(e: Event) => r.media.handleError(m.mediaUrl, e.currentTarget)}
    ></video>
    ${caption(m.caption, `caption-${m.id}`)}`;
}

/**
 * The download link's address. The `download` attribute is ignored across origins (the page's and
 * the service's), so the service's own signed media is asked for as an attachment (`download=1`,
 * server/media.ts); another host's address is left alone (a parameter could break its signature).
 */
function downloadHref(src: string, r: RenderContext): string {
  if (!isServiceMedia(src, r.actions?.baseUrl ?? '')) return src;
  const url = new URL(src);
  url.searchParams.set('download', '1');
  return url.href;
}

export function renderDocument(m: DocumentMessage | FileMessage, r: RenderContext): TemplateResult {
  // An expired address the service would not sign again is said, not left as a link to a refusal.
  const src = r.media.failed(m.mediaUrl) ? null : r.media.src(m.mediaUrl);
  const name = plainName(m.caption) || fileNameOf(m.mediaUrl ?? '') || r.t('document');
  return html`<div class="card">
    <span class="card__icon">${icons.file()}</span>
    <span class="card__body">
      <span class="card__title" dir="auto">${name}</span>
      <span class="card__secondary">${r.t(src ? 'document' : 'unavailableMedia')}</span>
    </span>
    ${
      src
        ? html`<a
            class="icon-button card__action"
            href=${downloadHref(src, r)}
            target="_blank"
            rel="noopener noreferrer"
            download
            aria-label=${`${r.t('download')}: ${name}`}
            @click=${(e: Event) => r.media.follow(e, m.mediaUrl)}
            @pointerenter=${() => r.media.prepare(m.mediaUrl)}
            @focus=${() => r.media.prepare(m.mediaUrl)}
            >${icons.download()}</a
          >`
        : nothing
    }
  </div>`;
}
