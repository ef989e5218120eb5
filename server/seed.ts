/** Demo seed data on first start. (Filled in by the demo work.) */
import type { FastifyInstance } from 'fastify';

export async function seedDemo(_app: FastifyInstance): Promise<void> {}
