/** Pieces shared by the route files. */
import { ErrorBodySchema } from '../../types/schemas/index.ts';

/** The error body documented under each given status. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBodySchema> {
  const out: Record<number, typeof ErrorBodySchema> = {};
  for (const s of statuses) out[s] = ErrorBodySchema;
  return out;
}

/** The success envelope of our own answers (cancel, update, create, room post). */
export function ok<T>(
  message: string,
  data: T,
): { message: string[]; statusMessage: string; status: number; data: T } {
  return { message: [message], statusMessage: 'success', status: 1, data };
}
