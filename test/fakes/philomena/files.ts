/**
 * Small, deterministic image files for the local Philomena's `/img/...` paths. Each (seed, extension)
 * gives the same bytes every time, so an image's `orig_sha512_hash` is the sha512 of what its
 * `representations.full` serves, and reverse search can match a downloaded file by hash.
 * The PNG and GIF files are valid 1x1 pictures whose colour comes from the seed.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { deflateSync } from 'node:zlib';

export type FileExtension = 'png' | 'gif' | 'jpg' | 'jpeg' | 'svg' | 'webm' | 'mp4';

export const MIME_TYPES: Readonly<Record<FileExtension, string>> = {
  png: 'image/png',
  gif: 'image/gif',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  svg: 'image/svg+xml',
  webm: 'video/webm',
  mp4: 'video/mp4',
};

export function isFileExtension(ext: string): ext is FileExtension {
  return Object.hasOwn(MIME_TYPES, ext);
}

function colour(seed: string): [number, number, number] {
  const digest = createHash('sha256').update(seed).digest();
  return [digest[0] ?? 0, digest[1] ?? 0, digest[2] ?? 0];
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

function png(seed: string): Buffer {
  const [r, g, b] = colour(seed);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const pixels = deflateSync(Buffer.from([0, r, g, b]));
  // A tEXt chunk keeps two seeds with the same colour apart.
  const text = Buffer.from(`Comment\0${seed}`, 'latin1');
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('tEXt', text),
    pngChunk('IDAT', pixels),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function gif(seed: string): Buffer {
  const [r, g, b] = colour(seed);
  const comment = Buffer.from(seed.slice(0, 255), 'latin1');
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    Buffer.from([1, 0, 1, 0, 0x80, 0, 0]), // 1x1, global colour table of 2 entries
    Buffer.from([r, g, b, 0, 0, 0]),
    Buffer.from([0x21, 0xfe, comment.length]), // comment extension
    comment,
    Buffer.from([0]),
    Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0]), // image descriptor
    Buffer.from([0x02, 0x02, 0x44, 0x01, 0x00]), // LZW data for one pixel of colour 0
    Buffer.from([0x3b]),
  ]);
}

// A minimal baseline JPEG body (1x1 grey); a COM segment carrying the seed follows SOI.
const JPEG_BODY = Buffer.from(
  'ffdb004300080606070605080707070909080a0c140d0c0b0b0c1912130f141d1a1f1e1d1a1c1c20242e2720222c231c1c2837292c30313434341f27393d38323c2e333432ffc0000b080001000101011100ffc4001f0000010501010101010100000000000000000102030405060708090a0bffc400b5100002010303020403050504040000017d01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9faffda0008010100003f00fbd3ffd9',
  'hex',
);

function jpeg(seed: string): Buffer {
  const comment = Buffer.from(seed, 'latin1');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(comment.length + 2);
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xfe]), length, comment, JPEG_BODY]);
}

function svg(seed: string): Buffer {
  const [r, g, b] = colour(seed);
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><!-- ${seed} --><rect width="1" height="1" fill="rgb(${r},${g},${b})"/></svg>\n`,
  );
}

function webm(seed: string): Buffer {
  // EBML magic and DocType "webm", then the seed: enough for sniffers; nobody decodes it in tests.
  return Buffer.concat([
    Buffer.from('1a45dfa39f4286810142f7810142f2810442f381084282847765626d', 'hex'),
    Buffer.from(seed, 'latin1'),
  ]);
}

function mp4(seed: string): Buffer {
  const brand = Buffer.from('\0\0\0\x18ftypisom\0\0\x02\0isomiso2', 'latin1');
  return Buffer.concat([brand, Buffer.from(seed, 'latin1')]);
}

/** The bytes of one file. `seed` is usually `image-<id>` (or a sample name for uploads). */
export function fileBytes(seed: string, ext: FileExtension): Buffer {
  switch (ext) {
    case 'png':
      return png(seed);
    case 'gif':
      return gif(seed);
    case 'jpg':
    case 'jpeg':
      return jpeg(seed);
    case 'svg':
      return svg(seed);
    case 'webm':
      return webm(seed);
    case 'mp4':
      return mp4(seed);
  }
}

export function sha512(bytes: Uint8Array): string {
  return createHash('sha512').update(bytes).digest('hex');
}
