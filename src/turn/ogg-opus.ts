/** The fixed part of an Ogg page header, before its segment table (RFC 3533 §6). */
const PAGE_HEADER = 27;
/** The header-type flag of a stream's first page ("beginning of stream"). */
const FIRST_PAGE = 0x02;

/**
 * Whether `bytes` begin as an Ogg/Opus file does (RFC 7845 §3): an Ogg page (`OggS`, version
 * 0) that opens its stream, whose first packet is the Opus identification header
 * (`OpusHead`). What a voice note must be; anything else a speech server sends (an error
 * page, MP3, random bytes) is not sent as one.
 */
export function isOggOpus(bytes: Uint8Array): boolean {
  if (bytes.length < PAGE_HEADER) return false;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.toString('latin1', 0, 4) !== 'OggS' || view[4] !== 0) return false;
  if ((view[5]! & FIRST_PAGE) === 0) return false;
  const packet = PAGE_HEADER + view[26]!;
  return view.toString('latin1', packet, packet + 8) === 'OpusHead';
}
