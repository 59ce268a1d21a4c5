"""The Python datasets of chainer.datasets (images, text, pickle, PTB, SVHN, Kuzushiji-MNIST,
split_dataset_n) on tiny files written here in their original formats."""
import pickle
import struct
import zipfile
import zlib

import numpy
import pytest
from PIL import Image

import rensa
from rensa import datasets as D


def write_png(path, array):
    Image.fromarray(array).save(str(path))


@pytest.fixture
def images(tmp_path):
    rs = numpy.random.RandomState(0)
    rgb = rs.randint(0, 256, size=(4, 5, 3)).astype(numpy.uint8)
    gray = rs.randint(0, 256, size=(4, 5)).astype(numpy.uint8)
    write_png(tmp_path / 'rgb.png', rgb)
    write_png(tmp_path / 'gray.png', gray)
    return tmp_path, rgb, gray


class TestImageDatasets:
    def test_image_dataset_chw_float32(self, images):
        root, rgb, gray = images
        d = D.ImageDataset(['rgb.png', 'gray.png'], root=str(root))
        assert len(d) == 2
        x = d[0]
        assert x.dtype == numpy.float32 and x.shape == (3, 4, 5)
        numpy.testing.assert_array_equal(x, rgb.transpose(2, 0, 1))
        g = d[1]
        assert g.shape == (1, 4, 5)
        numpy.testing.assert_array_equal(g[0], gray)

    def test_paths_file_and_dtype(self, images):
        root, rgb, _ = images
        (root / 'list.txt').write_text('rgb.png\n')
        d = D.ImageDataset(str(root / 'list.txt'), root=str(root), dtype=numpy.uint8)
        assert d[0].dtype == numpy.uint8
        numpy.testing.assert_array_equal(d[0], rgb.transpose(2, 0, 1))

    def test_labeled_from_pairs_file(self, images):
        root, _, gray = images
        (root / 'pairs.txt').write_text('rgb.png 3\ngray.png 7\n')
        d = D.LabeledImageDataset(str(root / 'pairs.txt'), root=str(root), dtype=numpy.float64,
                                  label_dtype=numpy.int64)
        x, t = d[1]
        assert x.dtype == numpy.float64 and x.shape == (1, 4, 5)
        assert t.dtype == numpy.int64 and t.shape == () and int(t) == 7
        assert [int(t) for _, t in d[0:2]] == [3, 7]

    def test_labeled_bad_line(self, images):
        root, _, _ = images
        (root / 'bad.txt').write_text('rgb.png 3\ngray.png\n')
        with pytest.raises(ValueError, match="LabeledImageDataset: Expect: '<path> <integer label>'.*line 1"):
            D.LabeledImageDataset(str(root / 'bad.txt'))

    def test_unreadable_image_names_file(self, tmp_path):
        (tmp_path / 'junk.png').write_bytes(b'not an image')
        d = D.ImageDataset(['junk.png'], root=str(tmp_path))
        with pytest.raises(OSError, match='ImageDataset: cannot read the image .*junk.png'):
            d[0]

    def test_zipped(self, images):
        root, rgb, gray = images
        for name, members in (('a.zip', ['rgb.png']), ('b.zip', ['gray.png', 'rgb.png'])):
            with zipfile.ZipFile(str(root / name), 'w') as z:
                for m in members:
                    z.write(str(root / m), m)
        za = D.ZippedImageDataset(str(root / 'b.zip'))
        assert len(za) == 2
        numpy.testing.assert_array_equal(za[0][0], gray)
        numpy.testing.assert_array_equal(za.get_example('rgb.png'), rgb.transpose(2, 0, 1))
        with pytest.raises(KeyError, match="no member 'nope.png'"):
            za.get_example('nope.png')
        multi = D.MultiZippedImageDataset([str(root / 'a.zip'), str(root / 'b.zip')])
        assert len(multi) == 3
        assert [multi[i].shape[0] for i in range(3)] == [3, 1, 3]
        with pytest.raises(IndexError):
            multi[3]
        (root / 'labels.txt').write_text('rgb.png 1\ngray.png 2\n')
        labeled = D.LabeledZippedImageDataset(str(root / 'b.zip'), str(root / 'labels.txt'))
        x, t = labeled[1]
        assert x.shape == (1, 4, 5) and int(t) == 2 and t.dtype == numpy.int32
        # a pickled copy (what a worker process gets) reopens the archive
        numpy.testing.assert_array_equal(pickle.loads(pickle.dumps(za))[1], za[1])

    def test_iterates_with_serial_iterator(self, images):
        root, _, _ = images
        d = D.LabeledImageDataset([('rgb.png', 0), ('rgb.png', 1)], root=str(root))
        batch = next(rensa.iterators.SerialIterator(d, 2, shuffle=False))
        x, t = rensa.dataset.concat_examples(batch)
        assert x.shape == (2, 3, 4, 5) and t.tolist() == [0, 1]


class TestTextDataset:
    def test_lines_pairs_and_filter(self, tmp_path):
        (tmp_path / 'a.txt').write_text('one\ntwo\nthree\n')
        (tmp_path / 'b.txt').write_text('1\n2\n3\n')
        d = D.TextDataset(str(tmp_path / 'a.txt'))
        assert len(d) == 3 and d[2] == 'three\n' and d[0] == 'one\n'
        pairs = D.TextDataset([str(tmp_path / 'a.txt'), str(tmp_path / 'b.txt')],
                              filter_func=lambda a, b: b.strip() != '2')
        assert len(pairs) == 2 and pairs[1] == ('three\n', '3\n')
        with pytest.raises(IndexError, match='TextDataset: index 2 is out of range'):
            pairs[2]
        assert pickle.loads(pickle.dumps(pairs))[0] == ('one\n', '1\n')
        pairs.close()

    def test_errors(self, tmp_path):
        (tmp_path / 'a.txt').write_text('one\ntwo\n')
        (tmp_path / 'b.txt').write_text('1\n')
        with pytest.raises(ValueError, match='same number of lines'):
            D.TextDataset([str(tmp_path / 'a.txt'), str(tmp_path / 'b.txt')])
        with pytest.raises(ValueError, match='at least one text file'):
            D.TextDataset([])
        with pytest.raises(ValueError, match='one value per file'):
            D.TextDataset([str(tmp_path / 'a.txt')], encoding=['utf-8', 'utf-8'])


class TestPickleDataset:
    def test_write_then_read(self, tmp_path):
        path = str(tmp_path / 'data.pkl')
        examples = [(numpy.arange(3, dtype=numpy.float32) + i, i) for i in range(5)]
        with D.open_pickle_dataset_writer(path) as writer:
            for e in examples:
                writer.write(e)
            writer.flush()
        with D.open_pickle_dataset(path) as d:
            assert len(d) == 5
            for i in (4, 0, 2):
                numpy.testing.assert_array_equal(d[i][0], examples[i][0])
                assert d[i][1] == i
            assert len(d[1:3]) == 2

    def test_needs_random_access(self):
        class Stream(object):
            def seekable(self):
                return False
        with pytest.raises(ValueError, match='PickleDataset: Expect: a seekable reader'):
            D.PickleDataset(Stream())


class TestSplitDatasetN:
    def test_equal_parts(self):
        data = numpy.arange(11)
        parts = D.split_dataset_n(data, 3)
        assert [len(p) for p in parts] == [3, 3, 3]
        assert [int(parts[2][i]) for i in range(3)] == [6, 7, 8]
        with pytest.raises(ValueError, match='split_dataset_n: Expect: n to be a positive integer'):
            D.split_dataset_n(data, 0)

    def test_random_as_chainer(self):
        data = numpy.arange(10)
        parts = D.split_dataset_n_random(data, 2, seed=3)
        order = numpy.random.RandomState(3).permutation(10)
        assert [int(parts[1][i]) for i in range(5)] == order[5:10].tolist()


@pytest.fixture
def dataset_root(tmp_path, monkeypatch):
    monkeypatch.setenv('RENSA_DATASET_ROOT', str(tmp_path))
    return tmp_path


class TestPtb:
    def test_words_and_vocabulary(self, dataset_root):
        ptb = dataset_root / 'ptb'
        ptb.mkdir()
        (ptb / 'ptb.train.txt').write_text(' the cat sat \n the dog\n')
        (ptb / 'ptb.valid.txt').write_text(' dog sat\n')
        (ptb / 'ptb.test.txt').write_text(' cat\n\n')
        train, valid, test = D.get_ptb_words()
        vocab = D.get_ptb_words_vocabulary()
        assert vocab == {'the': 0, 'cat': 1, 'sat': 2, '<eos>': 3, 'dog': 4}
        assert train.dtype == numpy.int32 and train.tolist() == [0, 1, 2, 3, 0, 4, 3]
        assert valid.tolist() == [4, 2, 3]
        assert test.tolist() == [1, 3, 3]  # an empty line still ends with <eos>

    def test_unknown_word(self, dataset_root):
        ptb = dataset_root / 'ptb'
        ptb.mkdir()
        for name, text in (('train', 'a\n'), ('valid', 'a b\n'), ('test', 'a\n')):
            (ptb / ('ptb.%s.txt' % name)).write_text(text)
        with pytest.raises(KeyError, match="get_ptb_words: the word 'b' of .*ptb.valid.txt"):
            D.get_ptb_words()

    def test_missing_names_files_and_folder(self, dataset_root):
        with pytest.raises(OSError, match=r"get_ptb_words: the data set is missing. Expected the files "
                                          r"ptb.train.txt, ptb.valid.txt, ptb.test.txt in '.*ptb'"):
            D.get_ptb_words()

    def test_unset_root(self, monkeypatch):
        monkeypatch.delenv('RENSA_DATASET_ROOT', raising=False)
        with pytest.raises(OSError, match=r'\$RENSA_DATASET_ROOT/ptb/ \(unset\)'):
            D.get_ptb_words_vocabulary()


class TestKuzushijiMnist:
    def write(self, folder, n_train=3, n_test=2):
        folder.mkdir()
        rs = numpy.random.RandomState(1)
        arrays = {}
        for split, n in (('train', n_train), ('test', n_test)):
            arrays[split] = (rs.randint(0, 256, (n, 28, 28)).astype(numpy.uint8),
                             rs.randint(0, 10, n).astype(numpy.uint8))
            numpy.savez_compressed(str(folder / ('kmnist-%s-imgs.npz' % split)), arrays[split][0])
            numpy.savez_compressed(str(folder / ('kmnist-%s-labels.npz' % split)), arrays[split][1])
        return arrays

    def test_shapes_scale_labels(self, dataset_root):
        arrays = self.write(dataset_root / 'kuzushiji-mnist')
        train, test = D.get_kuzushiji_mnist(ndim=3, scale=2.)
        assert len(train) == 3 and len(test) == 2
        x, t = train[1]
        assert x.shape == (1, 28, 28) and x.dtype == numpy.float32 and t.dtype == numpy.int32
        numpy.testing.assert_allclose(x[0], arrays['train'][0][1] * (2. / 255.), rtol=1e-6)
        assert int(t) == arrays['train'][1][1]
        images, _ = D.get_kuzushiji_mnist(withlabel=False, ndim=3, rgb_format=True, dtype=numpy.float64)
        assert images.shape == (3, 3, 28, 28) and images.dtype == numpy.float64
        flat, _ = D.get_kuzushiji_mnist(withlabel=False)
        assert flat.shape == (3, 784)
        assert D.get_kuzushiji_mnist_labels()[0] == ('o', '\u304A')
        with pytest.raises(ValueError, match='get_kuzushiji_mnist: Expect: ndim in'):
            D.get_kuzushiji_mnist(ndim=4)

    def test_missing(self, dataset_root):
        with pytest.raises(OSError, match=r"get_kuzushiji_mnist: .*kmnist-train-imgs.npz.*kuzushiji-mnist'"):
            D.get_kuzushiji_mnist()


def mat_element(mi_type, payload):
    pad = -len(payload) % 8
    return struct.pack('<II', mi_type, len(payload)) + payload + b'\0' * pad


def mat_variable(name, array, mx_class, stored_dtype, mi_type, compress):
    # MATLAB 5 miMATRIX: flags, dims, name, real part (column-major, possibly narrower type)
    body = mat_element(6, struct.pack('<II', mx_class, 0))
    body += mat_element(5, numpy.array(array.shape, dtype='<i4').tobytes())
    if len(name) <= 4:  # as MATLAB writes short names: a small data element
        body += struct.pack('<I', (len(name) << 16) | 1) + name.encode().ljust(4, b'\0')
    else:
        body += mat_element(1, name.encode())
    body += mat_element(mi_type, array.astype(stored_dtype).tobytes(order='F'))
    element = mat_element(14, body)
    if compress:
        data = zlib.compress(element)
        return struct.pack('<II', 15, len(data)) + data
    return element


def write_mat(path, variables, compress):
    header = b'MATLAB 5.0 MAT-file, written by rensa tests'.ljust(116) + b'\0' * 8 + struct.pack('<H', 0x0100) + b'IM'
    body = b''.join(mat_variable(*v, compress=compress) for v in variables)
    path.write_bytes(header + body)


class TestSvhn:
    def write(self, folder, compress):
        folder.mkdir()
        rs = numpy.random.RandomState(2)
        out = {}
        for split, n in (('train', 3), ('test', 2)):
            x = rs.randint(0, 256, (32, 32, 3, n)).astype(numpy.uint8)
            y = rs.randint(1, 11, (n, 1)).astype(numpy.float64)
            y[0, 0] = 10.
            # X as uint8 (mxUINT8, miUINT8); y as MATLAB saves doubles of small integers: miUINT8
            write_mat(folder / ('%s_32x32.mat' % split),
                      [('X', x, 9, numpy.uint8, 2), ('y', y, 6, numpy.uint8, 2),
                       ('comment', numpy.frombuffer(b'svhn', numpy.uint8).reshape(1, 4), 4, '<u2', 4),
                       ('scale_factor', numpy.array([[0.5]]), 6, '<f8', 9)], compress)
            out[split] = x, y
        return out

    @pytest.mark.parametrize('compress', [False, True])
    def test_read_as_chainer(self, dataset_root, compress):
        raw = self.write(dataset_root / 'svhn', compress)
        train, test = D.get_svhn(scale=1.)
        assert len(train) == 3 and len(test) == 2
        x, t = train[1]
        assert x.shape == (3, 32, 32) and x.dtype == numpy.float32
        numpy.testing.assert_allclose(x, raw['train'][0][:, :, :, 1].transpose(2, 0, 1) / 255., rtol=1e-6)
        labels = [int(t) for _, t in train[0:3]]
        expected = raw['train'][1][:, 0].astype(int).tolist()
        assert labels == [0 if v == 10 else v for v in expected] and labels[0] == 0
        images, _ = D.get_svhn(withlabel=False, dtype=numpy.float64, scale=255.)
        numpy.testing.assert_allclose(images[2, 1], raw['train'][0][:, :, 1, 2], rtol=1e-12)

    def test_loadmat_variables(self, dataset_root):
        from rensa.datasets import _matlab
        raw = self.write(dataset_root / 'svhn', False)
        got = _matlab.loadmat(str(dataset_root / 'svhn' / 'test_32x32.mat'))
        assert sorted(got) == ['X', 'scale_factor', 'y']  # the char array is skipped
        assert got['X'].dtype == numpy.uint8 and got['X'].shape == (32, 32, 3, 2)
        numpy.testing.assert_array_equal(got['X'], raw['test'][0])
        assert got['y'].dtype == numpy.float64 and got['y'].tolist() == raw['test'][1].tolist()
        assert got['scale_factor'].tolist() == [[0.5]]

    def test_extra_missing(self, dataset_root):
        self.write(dataset_root / 'svhn', True)
        with pytest.raises(OSError, match=r'get_svhn: .*extra_32x32.mat.*\(missing: extra_32x32.mat\)'):
            D.get_svhn(add_extra=True)

    def test_not_a_mat_file(self, dataset_root):
        (dataset_root / 'svhn').mkdir()
        for name in ('train_32x32.mat', 'test_32x32.mat'):
            (dataset_root / 'svhn' / name).write_bytes(b'\0' * 200)
        with pytest.raises(OSError, match="loadmat: '.*train_32x32.mat' is not a readable MATLAB 5 file"):
            D.get_svhn()


CHAINER_SCRIPT = r'''
import json, os, sys
import numpy
import chainer
from chainer.dataset import download
folder = sys.argv[1]
download.set_dataset_root(os.path.join(folder, 'chainer_cache'))
download.cached_download = lambda url: os.path.join(folder, 'ptb', os.path.basename(url))
train, valid, test = chainer.datasets.get_ptb_words()
vocab = chainer.datasets.get_ptb_words_vocabulary()
images = chainer.datasets.LabeledImageDataset(os.path.join(folder, 'pairs.txt'), root=folder)
gray = chainer.datasets.ImageDataset([os.path.join(folder, 'gray.png')], dtype=numpy.float64)
text = chainer.datasets.TextDataset([os.path.join(folder, 'a.txt'), os.path.join(folder, 'b.txt')])
parts = chainer.datasets.split_dataset_n_random(numpy.arange(10), 3, seed=4)
numpy.savez(os.path.join(folder, 'chainer.npz'), train=train, valid=valid, test=test,
            x0=images[0][0], t0=images[0][1], x1=images[1][0], g=gray[0],
            parts=numpy.array([[int(p[i]) for i in range(len(p))] for p in parts]))
json.dump({'vocab': vocab, 'text': [list(text[i]) for i in range(len(text))]},
          open(os.path.join(folder, 'chainer.json'), 'w'))
'''


def test_same_as_chainer(tmp_path, monkeypatch):
    import json
    import subprocess
    from chainer_style_harness import chainer_python
    python = chainer_python()
    if python is None or subprocess.run([python, '-c', 'import chainer, PIL'], capture_output=True).returncode:
        pytest.skip('real Chainer with Pillow is not installed (scripts/install-chainermn-bench.sh)')
    rs = numpy.random.RandomState(3)
    ptb = tmp_path / 'ptb'
    ptb.mkdir()
    words = ['w%d' % i for i in range(12)]
    for name, lines in (('train', 9), ('valid', 3), ('test', 4)):
        text = '\n'.join(' ' + ' '.join(rs.choice(words, rs.randint(0, 6))) + ' ' for _ in range(lines)) + '\n'
        (ptb / ('ptb.%s.txt' % name)).write_text(text)
    (ptb / 'ptb.train.txt').write_text((ptb / 'ptb.train.txt').read_text() + ' '.join(words) + '\n')
    write_png(tmp_path / 'rgb.png', rs.randint(0, 256, (3, 4, 3)).astype(numpy.uint8))
    write_png(tmp_path / 'gray.png', rs.randint(0, 256, (5, 2)).astype(numpy.uint8))
    (tmp_path / 'pairs.txt').write_text('rgb.png 4\ngray.png 1\n')
    (tmp_path / 'a.txt').write_text('x\ny y\n\nz')
    (tmp_path / 'b.txt').write_text('1\n2\n3\n4')
    script = tmp_path / 'chainer_datasets.py'
    script.write_text(CHAINER_SCRIPT)
    env = {'PYTHONWARNINGS': 'ignore', 'CHAINER_WARN_VERSION_MISMATCH': '0', 'PATH': '/usr/bin:/bin'}
    proc = subprocess.run([python, str(script), str(tmp_path)], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ref = numpy.load(str(tmp_path / 'chainer.npz'))
    ref_json = json.load(open(str(tmp_path / 'chainer.json')))

    monkeypatch.setenv('RENSA_DATASET_ROOT', str(tmp_path))
    for ours, key in zip(D.get_ptb_words(), ('train', 'valid', 'test')):
        assert ours.dtype == ref[key].dtype and ours.tolist() == ref[key].tolist(), key
    assert D.get_ptb_words_vocabulary() == ref_json['vocab']
    images = D.LabeledImageDataset(str(tmp_path / 'pairs.txt'), root=str(tmp_path))
    for ours, key in ((images[0][0], 'x0'), (images[1][0], 'x1'), (images[0][1], 't0'),
                      (D.ImageDataset([str(tmp_path / 'gray.png')], dtype=numpy.float64)[0], 'g')):
        assert ours.dtype == ref[key].dtype and ours.shape == ref[key].shape, key
        numpy.testing.assert_array_equal(ours, ref[key])
    text = D.TextDataset([str(tmp_path / 'a.txt'), str(tmp_path / 'b.txt')])
    assert [list(text[i]) for i in range(len(text))] == ref_json['text']
    parts = D.split_dataset_n_random(numpy.arange(10), 3, seed=4)
    assert [[int(p[i]) for i in range(len(p))] for p in parts] == ref['parts'].tolist()
