/**
 * Registers every element of the widget. Safe to import more than once, or
 * on a page where another copy already registered a tag: an existing tag is
 * left as it is, never redefined (which would throw).
 */
import { CharlaChat } from './components/chat/chat.ts';
import { CharlaComposer } from './components/composer/composer.ts';
import { CharlaContactForm } from './components/contact-form/contact-form.ts';
import { CharlaHomeMenu } from './components/home-menu/home-menu.ts';
import { CharlaMessage } from './components/message/message.ts';
import { CharlaMessageList } from './components/message-list/message-list.ts';
import { CharlaRoomContacts } from './components/room-contacts/room-contacts.ts';
import { CharlaWidget } from './components/widget/widget.ts';

export const elements = {
  'charla-widget': CharlaWidget,
  'charla-home-menu': CharlaHomeMenu,
  'charla-room-contacts': CharlaRoomContacts,
  'charla-chat': CharlaChat,
  'charla-message-list': CharlaMessageList,
  'charla-message': CharlaMessage,
  'charla-composer': CharlaComposer,
  'charla-contact-form': CharlaContactForm,
} as const;

/**
 * The widget element's tag: `charla-widget`, or `charla-widget-2` (3, ...) on
 * a page whose own element (not another copy of Charla's) took the name.
 */
export let widgetTag = 'charla-widget';

/** Defines each tag that is not defined yet. */
export function defineElements(
  registry: CustomElementRegistry | undefined = globalThis.customElements,
): void {
  if (!registry) return;
  for (const [tag, ctor] of Object.entries(elements)) {
    let name = tag;
    const taken = registry.get(tag);
    if (taken && ctor !== CharlaWidget) {
      // Another copy of Charla's part serves (its elements take a context, a row its message). A page's
      // own element under a part's name takes that part's place: the widget cannot rename its parts.
      if (!('context' in taken.prototype || 'message' in taken.prototype))
        console.warn(`Charla: this page defines its own <${tag}>; the widget shows it in place of its own`);
      continue;
    }
    // Another copy of Charla defined it (its widget takes a context): that one serves.
    if (taken && 'context' in taken.prototype) continue;
    if (taken) {
      // The page's own <charla-widget> stays the page's: the widget takes the next free name.
      for (let n = 2; registry.get((name = `${tag}-${n}`)); n++);
      console.warn(`Charla: this page defines its own <${tag}>; the widget is <${name}> here`);
    }
    try {
      registry.define(name, ctor);
      if (ctor === CharlaWidget) widgetTag = name;
    } catch (e) {
      // The registry refused (a page's shim that allows only its own names): the page keeps working, and the
      // console says why no widget shows (it was silent).
      if (ctor === CharlaWidget)
        console.error(`Charla: <${name}> could not be defined: the widget cannot show.`, e);
    }
  }
}

defineElements();

export {
  CharlaChat,
  CharlaComposer,
  CharlaContactForm,
  CharlaHomeMenu,
  CharlaMessage,
  CharlaMessageList,
  CharlaRoomContacts,
  CharlaWidget,
};
