/** Every HTTP operation of the interface, one file per section. (Filled in by the service work.) */
import type { FastifyInstance } from 'fastify';

export async function httpRoutes(_app: FastifyInstance): Promise<void> {}
