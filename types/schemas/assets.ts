import Type from 'typebox';
import {
  HTTPS_ADDRESS_PATTERN,
  RESOURCE_URL_MAX,
  SIGNED_URL_TTL_MAX,
  SIGNED_URL_TTL_MIN,
} from '../limits.ts';

export const AssetsRefreshBody = Type.Object({
  resourceUrl: Type.String({ minLength: 9, maxLength: RESOURCE_URL_MAX, pattern: HTTPS_ADDRESS_PATTERN }),
  ttl: Type.Integer({ minimum: SIGNED_URL_TTL_MIN, maximum: SIGNED_URL_TTL_MAX }),
});
export type AssetsRefreshBody = Type.Static<typeof AssetsRefreshBody>;

export const SignedUrlResult = Type.Object({ signedUrl: Type.String() });
export type SignedUrlResult = Type.Static<typeof SignedUrlResult>;
