// A .npy file as numpy writes one (C order, the header padded with spaces to a multiple of 64
// bytes): the input of the page's parser in tests/js/parsers.test.mjs and tests/browser/.
const SIZES = { '<f4': 4, '<f8': 8, '|u1': 1 };

export function npy(shape, values, { descr = '<f4', version = 1 } = {}) {
  const prefix = version === 1 ? 10 : 12;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((prefix + header.length) % 64)) + '\n';
  const size = SIZES[descr];
  const buffer = Buffer.alloc(prefix + header.length + values.length * size);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]).copy(buffer);
  if (version === 1) buffer.writeUInt16LE(header.length, 8);
  else buffer.writeUInt32LE(header.length, 8);
  buffer.write(header, prefix, 'latin1');
  const write = { '<f4': (v, at) => buffer.writeFloatLE(v, at), '<f8': (v, at) => buffer.writeDoubleLE(v, at), '|u1': (v, at) => buffer.writeUInt8(v, at) }[descr];
  values.forEach((v, i) => write(v, prefix + header.length + size * i));
  return buffer;
}
