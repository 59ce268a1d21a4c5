"""The numeric matrices of a MATLAB 5 .mat file (what SVHN distributes), without scipy.

See Note [MATLAB 5 files].
"""
import struct
import zlib

import numpy

__all__ = ['loadmat']

# Note [MATLAB 5 files]: a 128-byte header (text, subsystem offset, version 0x0100 and the
# endian mark 'IM' or 'MI'), then data elements: an 8-byte tag (type, byte count) or a small
# element (count in the tag's upper half, data in its last 4 bytes), each padded to 8 bytes.
# A variable is a miMATRIX element (array flags, dimensions, name, real part) or one inside a
# zlib-compressed miCOMPRESSED element. The real part may be stored in a narrower type than
# the array's class (MATLAB saves a double array of small integers as uint8); it is widened
# to the class's dtype, and the column-major data is reshaped in Fortran order. Version 7.3
# files are HDF5 and are refused.

_MI_TYPES = {1: 'i1', 2: 'u1', 3: 'i2', 4: 'u2', 5: 'i4', 6: 'u4', 7: 'f4', 9: 'f8', 12: 'i8', 13: 'u8'}
_MI_MATRIX, _MI_COMPRESSED = 14, 15
_MX_CLASSES = {6: 'f8', 7: 'f4', 8: 'i1', 9: 'u1', 10: 'i2', 11: 'u2', 12: 'i4', 13: 'u4', 14: 'i8', 15: 'u8'}


class _Reader(object):
    def __init__(self, path, data, endian):
        self.path, self.data, self.endian, self.pos = path, data, endian, 0

    def fail(self, what):
        raise OSError("loadmat: '%s' is not a readable MATLAB 5 file: %s" % (self.path, what))

    def element(self):
        """(type, payload bytes) of the next element, moving past its padding."""
        if self.pos + 8 > len(self.data):
            self.fail('truncated tag at byte %d' % self.pos)
        word, count = struct.unpack_from(self.endian + 'II', self.data, self.pos)
        if word >> 16:  # small data element
            payload = self.data[self.pos + 4:self.pos + 4 + (word >> 16)]
            self.pos += 8
            return word & 0xFFFF, payload
        start = self.pos + 8
        if start + count > len(self.data):
            self.fail('an element of %d bytes at byte %d runs past the end' % (count, self.pos))
        self.pos = start + count
        if word != _MI_COMPRESSED:
            self.pos += -count % 8
        return word, self.data[start:start + count]

    def numbers(self, mi_type, payload):
        if mi_type not in _MI_TYPES:
            self.fail('unsupported data type %d' % mi_type)
        return numpy.frombuffer(payload, dtype=numpy.dtype(_MI_TYPES[mi_type]).newbyteorder(self.endian))


def _matrix(reader):
    """(name, array or None for a class that is not numeric) of one miMATRIX payload."""
    flags_type, flags = reader.element()
    flags_word = reader.numbers(flags_type, flags)[0]
    mx_class, complex_flag = int(flags_word) & 0xFF, bool(int(flags_word) & 0x800)
    dims = [int(d) for d in reader.numbers(*reader.element())]
    _, name = reader.element()
    name = bytes(name).decode('ascii', 'replace')
    if mx_class not in _MX_CLASSES:
        return name, None  # cell, struct, char, sparse, object: not needed here
    if complex_flag:
        reader.fail("variable '%s' is complex" % name)
    values = reader.numbers(*reader.element())
    if values.size != int(numpy.prod(dims)):
        reader.fail("variable '%s' has %d values for the dimensions %s" % (name, values.size, dims))
    return name, values.astype(_MX_CLASSES[mx_class]).reshape(dims, order='F')


def _variables(reader, out):
    while reader.pos < len(reader.data):
        mi_type, payload = reader.element()
        if mi_type == _MI_COMPRESSED:
            try:
                inner = zlib.decompress(payload)
            except zlib.error as e:
                reader.fail('a compressed element does not inflate (%s)' % e)
            _variables(_Reader(reader.path, inner, reader.endian), out)
        elif mi_type == _MI_MATRIX:
            name, array = _matrix(_Reader(reader.path, payload, reader.endian))
            if array is not None:
                out[name] = array


def loadmat(path):
    """A dict name -> numpy array (Fortran-ordered, the class's dtype) of the numeric
    matrices in the MATLAB 5 file at ``path``; OSError naming the file for anything else."""
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 128:
        raise OSError("loadmat: '%s' is not a readable MATLAB 5 file: %d bytes, shorter than the header"
                      % (path, len(data)))
    if data[:8] == b'\x89HDF\r\n\x1a\n' or data[512:520] == b'\x89HDF\r\n\x1a\n':
        raise OSError("loadmat: '%s' is a MATLAB 7.3 (HDF5) file; only MATLAB 5 files are read" % path)
    mark = data[126:128]
    if mark not in (b'IM', b'MI'):
        raise OSError("loadmat: '%s' is not a readable MATLAB 5 file: endian mark %r is not 'IM' or 'MI'"
                      % (path, mark))
    reader = _Reader(path, memoryview(data)[128:], '<' if mark == b'IM' else '>')
    out = {}
    _variables(reader, out)
    return out
