/**
 * Demo seed data (config.seedDemo, run once the service is ready): the demo
 * bot with calling enabled, a `normal` and a `group` widget with fixed,
 * well-known API keys the demo pages embed, a few users, and one campaign in
 * each status. Idempotent: every row has a fixed id and is inserted only when
 * missing, so a restart on a kept database adds nothing.
 *
 * The keys below are public on purpose (they are in the demo pages); the seed
 * never runs in production (configFromEnv turns it off there).
 */
import type { FastifyInstance } from 'fastify';
import type { BotMessageContent } from '../types/index.ts';
import type { Charla } from './context.ts';
import { createWidgetRecord } from './routes/widgets.ts';
import { upsertUser } from './live/rooms.ts';
import { SCHEMA_QUERY_TIMEOUT_MS } from './store/db.ts';

export const DEMO_BOT_ID = 'demo-bot';
export const DEMO_BOT_NAME = 'Charla';
export const DEMO_NORMAL_WIDGET_ID = 'demo-widget-normal';
export const DEMO_GROUP_WIDGET_ID = 'demo-widget-group';
/** API key of the `normal` demo widget (the customer site, the SPA and the console). */
export const DEMO_NORMAL_API_KEY = 'demo-normal-widget-key-0000000000000000';
/** API key of the `group` demo widget (the group chat page). */
export const DEMO_GROUP_API_KEY = 'demo-group-widget-key-00000000000000000';

/** Users of the group demo (also its contacts: demo/data/contacts.json lists the same). */
export const DEMO_USERS = [
  { id: 'alice', names: 'Alice Martín' },
  { id: 'bob', names: 'Bob Ruiz' },
  { id: 'carol', names: 'Carol Díaz' },
  { id: 'dave', names: 'Dave Pérez' },
] as const;

export interface DemoCampaign {
  id: string;
  name: string;
  elementName: string;
  status: 'PENDING' | 'SCHEDULED' | 'IN_PROGRESS' | 'COMPLETED' | 'CANCELLED';
  message: BotMessageContent;
  /** Days before now it was created. */
  createdDaysAgo: number;
  /** Days from now it is due (SCHEDULED). */
  scheduledInDays?: number;
  /** Recipients already delivered when seeded. */
  delivered: number;
  failed?: number;
}

/**
 * One campaign in each status. PENDING and IN_PROGRESS are live states: the
 * scheduler picks them up on start and carries them to COMPLETED, which the
 * QA console shows happening.
 */
export const DEMO_CAMPAIGNS: DemoCampaign[] = [
  {
    id: 'demo-campaign-completed',
    name: 'Bienvenida de primavera',
    elementName: 'spring_welcome',
    status: 'COMPLETED',
    message: { type: 'text', text: '¡Hola! Esta primavera tienes un 10 % en tu primera compra.' },
    createdDaysAgo: 6,
    delivered: 3,
    failed: 1,
  },
  {
    id: 'demo-campaign-cancelled',
    name: 'Encuesta cancelada',
    elementName: 'survey_march',
    status: 'CANCELLED',
    message: { type: 'contact_info_request', text: '¿Nos dejas tus datos para la encuesta?' },
    createdDaysAgo: 4,
    scheduledInDays: 2,
    delivered: 0,
  },
  {
    id: 'demo-campaign-scheduled',
    name: 'Rebajas de verano',
    elementName: 'summer_sale',
    status: 'SCHEDULED',
    message: {
      type: 'text',
      text: 'Las rebajas de verano empiezan mañana. ¿Qué te interesa?',
      buttons: {
        options: [
          { title: 'Ropa', payload: 'sale_clothes' },
          { title: 'Hogar', payload: 'sale_home' },
        ],
      },
    },
    createdDaysAgo: 2,
    scheduledInDays: 7,
    delivered: 0,
  },
  {
    id: 'demo-campaign-in-progress',
    name: 'Recordatorio de cita',
    elementName: 'appointment_reminder',
    status: 'IN_PROGRESS',
    message: { type: 'text', text: 'Te recordamos tu cita de mañana a las 10:00.' },
    createdDaysAgo: 1,
    delivered: 2,
  },
  {
    id: 'demo-campaign-pending',
    name: 'Novedades de la semana',
    elementName: 'weekly_news',
    status: 'PENDING',
    message: { type: 'text', text: 'Novedades de la semana: nuevo horario de atención, de 9:00 a 20:00.' },
    createdDaysAgo: 0,
    delivered: 0,
  },
];

const DEMO_THEME = {
  position: 'bottom-right',
  status: true,
  font: { googlefont: false, name: '' },
  colors: { primary: '#4f46e5' },
};

/** Seeds the demo data when missing. Safe to call on every start. */
/** One seeding at a time per embedded database (PGlite is one process's). */
const seeding = new WeakMap<object, Promise<void>>();

export async function seedDemo(app: FastifyInstance): Promise<void> {
  const charla = app.charla;
  const seedAll = async () => {
    await seedWidgets(charla);
    await seedUsers(charla);
    await seedCampaigns(charla);
  };
  if (charla.db.kind === 'postgres') {
    // Several processes may start at once on an empty database: the first to
    // take the lock seeds; the others wait for it and then find every row there.
    // The wait for another process's seeding may be longer than a request's statement.
    await charla.db.transaction(
      async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(7436202)');
        await seedAll();
      },
      { queryTimeoutMs: SCHEMA_QUERY_TIMEOUT_MS },
    );
  } else {
    const previous = seeding.get(charla.db) ?? Promise.resolve();
    const next = previous.then(seedAll, seedAll);
    seeding.set(charla.db, next);
    await next;
  }
  app.log.info(
    { normalKey: DEMO_NORMAL_API_KEY, groupKey: DEMO_GROUP_API_KEY, botId: DEMO_BOT_ID },
    'demo data ready',
  );
}

async function exists(charla: Charla, table: 'bots' | 'widgets', id: string): Promise<boolean> {
  const r = await charla.db.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id]);
  return r.rows.length > 0;
}

async function seedWidgets(charla: Charla): Promise<void> {
  const { db, config } = charla;
  if (!(await exists(charla, 'widgets', DEMO_NORMAL_WIDGET_ID))) {
    const botExists = await exists(charla, 'bots', DEMO_BOT_ID);
    await createWidgetRecord(
      charla,
      {
        bot: botExists ? { id: DEMO_BOT_ID } : { name: DEMO_BOT_NAME, callingEnabled: true },
        widget: { properties: { type: 'normal', name: 'Charla demo' }, theme: DEMO_THEME },
      } as unknown as Parameters<typeof createWidgetRecord>[1],
      {
        botId: DEMO_BOT_ID,
        widgetId: DEMO_NORMAL_WIDGET_ID,
        apiKey: DEMO_NORMAL_API_KEY,
        companyId: config.companyId,
      },
    );
  }
  if (!(await exists(charla, 'widgets', DEMO_GROUP_WIDGET_ID))) {
    await createWidgetRecord(
      charla,
      {
        bot: { id: DEMO_BOT_ID },
        widget: {
          properties: { type: 'group', name: 'Charla equipo' },
          theme: { ...DEMO_THEME, colors: { primary: '#0f766e' } },
        },
      } as unknown as Parameters<typeof createWidgetRecord>[1],
      { widgetId: DEMO_GROUP_WIDGET_ID, apiKey: DEMO_GROUP_API_KEY, companyId: config.companyId },
    );
  }
  // The demo bot places calls whatever an older seed said.
  await db.query('UPDATE bots SET calling_enabled = true WHERE id = $1 AND NOT calling_enabled', [
    DEMO_BOT_ID,
  ]);
}

async function seedUsers(charla: Charla): Promise<void> {
  for (const u of DEMO_USERS) await upsertUser(charla.db, charla.config.companyId, u.id, u.names);
}

async function seedCampaigns(charla: Charla): Promise<void> {
  const { db, config } = charla;
  const recipients = DEMO_USERS.map((u) => u.id);
  for (const c of DEMO_CAMPAIGNS) {
    await db.transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO campaigns (id, company_id, name, element_name, bot_id, status, message, scheduled_at,
           total_messages, delivered_messages, failed_messages, created_at, updated_at, completed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7,
           CASE WHEN $8::double precision IS NULL THEN NULL ELSE now() + make_interval(days => $8::integer) END,
           $9, $10, $11, now() - make_interval(days => $12::integer), now(),
           CASE WHEN $6 = 'COMPLETED' THEN now() - make_interval(days => $12::integer) + interval '5 minutes' END)
         ON CONFLICT (id) DO NOTHING`,
        [
          c.id,
          config.companyId,
          c.name,
          c.elementName,
          DEMO_BOT_ID,
          c.status,
          JSON.stringify(c.message),
          c.scheduledInDays ?? null,
          recipients.length,
          c.delivered,
          c.failed ?? 0,
          c.createdDaysAgo,
        ],
      );
      if (inserted.rowCount === 0) return;
      // The first `delivered` recipients are done, the next `failed` failed; the rest wait for the scheduler.
      for (const [i, userId] of recipients.entries()) {
        const failed = c.failed ?? 0;
        const status = i < c.delivered ? 'delivered' : i < c.delivered + failed ? 'failed' : 'pending';
        await tx.query(
          `INSERT INTO campaign_recipients (campaign_id, user_id, status, error) VALUES ($1, $2, $3, $4)
           ON CONFLICT (campaign_id, user_id) DO NOTHING`,
          [c.id, userId, status, status === 'failed' ? 'seeded failure: the user had blocked the bot' : null],
        );
      }
    });
  }
}
