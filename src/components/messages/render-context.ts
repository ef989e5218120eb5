/** What every message renderer receives besides its message. */
import type { PostbackMessage } from '../../../types/index.ts';
import type { MediaRefreshController } from '../../controllers/media-refresh.ts';
import type { Translate } from '../../i18n/index.ts';
import type { WidgetActions } from '../../widget/context.ts';

export interface RenderContext {
  t: Translate;
  language: string;
  /** The widget's actions; absent in a detached element. */
  actions: WidgetActions | undefined;
  media: MediaRefreshController;
  /** The message was written by this widget's user. */
  own: boolean;
  /** The message is the newest of the room (quick replies show only there). */
  latest: boolean;
  /** The visitor's answer to the message (a POSTBACK replying to it), once the room holds it. */
  answer: PostbackMessage | undefined;
}
