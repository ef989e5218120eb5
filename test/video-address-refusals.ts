/**
 * Video addresses refused before anything is fetched, with the reason the
 * service's 422 INVALID_MEDIA_URL (E1201) gives at /mediaUrl. One table for
 * the service's test (test/service/http-bot-messages.test.ts) and the API
 * client's (test/unit/api/client.test.ts), which must refuse them the same
 * way; each adds the hosts only it can judge (private addresses need the
 * service; a loopback address the client refuses unless allowed).
 */
export const VIDEO_ADDRESS_REFUSALS: ReadonlyArray<readonly [string, string]> = [
  ['http://example.com/a.mp4', 'must be an https address'],
  ['ftp://example.com/a.mp4', 'must be an absolute https:// address'],
  ['https://user:pass@example.com/a.mp4', 'must not carry credentials'],
  ['https://localhost./a.mp4', 'must name its host without a trailing dot'],
  ['https://', 'must be an absolute address'],
  ['javascript:alert(1)', 'must be an absolute https:// address'],
  ['not a url', 'must be an absolute https:// address'],
  ['', 'must be an absolute https:// address'],
  [' https://example.com/a.mp4', 'must be an absolute https:// address'],
  [`https://example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
  // The URL parser would drop the tab and the line break silently; the widget would never show them.
  ['https://example.com/\ta.mp4', 'must not contain spaces or control characters'],
  ['https://ex\nample.com/a.mp4', 'must not contain spaces or control characters'],
  ['https://example.com/a b.mp4', 'must not contain spaces or control characters'],
  [
    'https://example.com/a.mp4#"><img src=x onerror=alert(1)>',
    'must not contain spaces or control characters',
  ],
  ['https://example.com/a\u0085.mp4', 'must not contain spaces or control characters'],
  // Other Unicode spaces and invisible formatting: a direction control makes 'gnp.exe' read 'exe.png'.
  ['https://example.com/\u202Egnp.exe', 'must not contain spaces or control characters'],
  ['https://example.com/a\u00A0b.mp4', 'must not contain spaces or control characters'],
  ['https://example.com/a\u2028.mp4', 'must not contain spaces or control characters'],
  ['https://example.com/a\u3000.mp4', 'must not contain spaces or control characters'],
  ['https://example.com/a\u200Bb.mp4', 'must not contain spaces or control characters'],
  ['https://example.com/a\uFEFF.mp4', 'must not contain spaces or control characters'],
];
