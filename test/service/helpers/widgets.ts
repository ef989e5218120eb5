/** The widget library in service tests: no DOM, a memory outbox, its own storage namespace, WebSocket only. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Config } from '../../../server/config.ts';
import { CharlaError } from '../../../src/transport/errors.ts';
import { createWidget } from '../../../src/widget/create-widget.ts';
import type { WidgetOptions } from '../../../src/widget/core.ts';
import type { WidgetInstance } from '../../../src/widget/instance.ts';
import { startLive, type LiveHarness } from './live.ts';

/** A widget with the test defaults under `options`, kept in `made` so the file's afterAll destroys it. */
export function serviceWidget(made: WidgetInstance[], options: WidgetOptions): WidgetInstance {
  const w = createWidget({
    container: null,
    outboxStorage: 'memory',
    namespace: `ns-${randomUUID()}`,
    transports: ['websocket'],
    ...options,
  });
  made.push(w);
  return w;
}

/** A test file's live service and widget, from liveWidgets(); `h` and `apiKey` are set before its tests. */
export interface LiveWidgets {
  h: LiveHarness;
  /** The API key of the widget made for the file. */
  apiKey: string;
  /** The bot id of the widget made for the file. */
  botId: string;
  /** A widget of the file's key on its service (serviceWidget's defaults; any option may be given). */
  widget(options: Partial<WidgetOptions> & { userId: string }): WidgetInstance;
}

/**
 * A live service for the test file (`live`: its configuration) and a widget on it (`widget`:
 * createWidget's options), made before the file's tests; after them, the widgets made with
 * `widget()` are destroyed and the service closed.
 */
export function liveWidgets(
  options: { live?: Partial<Config>; widget?: Parameters<LiveHarness['createWidget']>[0] } = {},
): LiveWidgets {
  let harness: LiveHarness | undefined;
  let apiKey = '';
  let botId = '';
  const made: WidgetInstance[] = [];
  const started = (): LiveHarness => {
    if (!harness) throw new Error('liveWidgets: the service starts in beforeAll; use it inside tests');
    return harness;
  };
  beforeAll(async () => {
    harness = await startLive(options.live);
    ({ apiKey, botId } = await harness.createWidget(options.widget));
  });
  afterAll(async () => {
    for (const w of made) w.destroy();
    await harness?.close();
  });
  return {
    get h() {
      return started();
    },
    get apiKey() {
      return apiKey;
    },
    get botId() {
      return botId;
    },
    widget: (o) => serviceWidget(made, { apiKey, baseUrl: started().baseUrl, ...o }),
  };
}

/** The CharlaError a widget call rejects with (a call that resolves fails the test). */
export async function rejection(p: Promise<unknown>): Promise<CharlaError> {
  const e = await p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(CharlaError);
  return e as CharlaError;
}
