/**
 * POST /v1/external/assets/refresh: a new signed address for one of the
 * service's own media (stored media, or an expired signed address of it).
 * Anything else cannot be signed: 422 E1126 SIGNED_URL_ERROR.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AssetsRefreshBody, SignedUrlResult } from '../../types/schemas/index.ts';
import { ROUTES } from '../../types/index.ts';
import { parseAddress } from '../../types/urls.ts';
import { requireBasic } from '../http/auth.ts';
import { ApiError, validationFailed } from '../http/errors.ts';
import { errorResponses } from './common.ts';

export async function assetRoutes(app: FastifyInstance): Promise<void> {
  const charla = app.charla;
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    ROUTES.assetsRefresh,
    {
      schema: {
        tags: ['Resources'],
        summary: 'Refresh a media URL',
        operationId: 'refreshAsset',
        description:
          'Signs an address of the media this service serves for ttl seconds (900-3600). Addresses that are not its own media: 422 E1126 SIGNED_URL_ERROR.',
        security: [{ basicAuth: [] }],
        body: AssetsRefreshBody,
        response: { 200: SignedUrlResult, ...errorResponses(401, 422) },
      },
      onRequest: requireBasic(charla.config),
    },
    async (request) => {
      const { resourceUrl, ttl } = request.body;
      // Not an address at all, or one no address check takes (a space or control character,
      // credentials), is the caller's format mistake (400); a valid one that is not this
      // service's media is what cannot be signed (422).
      const address = parseAddress(resourceUrl);
      if (typeof address === 'string') throw validationFailed({ '/resourceUrl': address });
      const key = charla.signer.mediaKeyOf(resourceUrl, charla.ownBaseUrls(request));
      const exists =
        key !== null &&
        // Another company's file in the same storage is not this service's to sign.
        (
          await charla.db.query<{ key: string }>('SELECT key FROM media WHERE key = $1 AND company_id = $2', [
            key,
            charla.config.companyId,
          ])
        ).rows.length > 0;
      if (!exists || key === null) {
        throw new ApiError('SIGNED_URL_ERROR', {
          message: 'The address is not a media resource of this service.',
        });
      }
      const signedUrl = charla.signer.sign(key, ttl, charla.baseUrlFor(request));
      // A download link (`download=1`, the document card's) stays one: refreshed, it still saves the file.
      return {
        signedUrl: address.searchParams.get('download') === '1' ? `${signedUrl}&download=1` : signedUrl,
      };
    },
  );
}
