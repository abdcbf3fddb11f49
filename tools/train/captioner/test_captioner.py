#!/usr/bin/python3
"""The captioner's data, file format and reference (needs python3-torch, python3-pil, librsvg2-bin
and tools/data's npm packages; about a minute):

  /usr/bin/python3 -m pytest tools/train/captioner/    (from the repository root)
"""
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from tools.data.scenes import generate, grammar, objects
from . import fileformat, make_fixture, metrics, model, pixels, reference

VOCAB = {w: i for i, w in enumerate(grammar.VOCABULARY)}


def test_the_grammar_writes_counts_sizes_and_positions():
    cat, tree, apple, sun, car = (objects.NAMES.index(n) for n in ("cat", "tree", "apple", "sun", "car"))
    assert grammar.caption([(cat, 2, "big"), (tree, 1, "plain")], "left") == \
        "two cats to the left of a tree".split()
    assert grammar.caption([(car, 1, "small"), (sun, 1, "big")], "below") == "a small car below a big sun".split()
    assert grammar.caption([(apple, 1, "plain")]) == ["an", "apple"]
    assert grammar.caption([(apple, 1, "big")]) == ["a", "big", "apple"]
    assert grammar.caption([(cat, 1, "plain"), (tree, 3, "small"), (apple, 1, "small")]) == \
        "a cat , three trees and a small apple".split()
    assert len(set(grammar.VOCABULARY)) == len(grammar.VOCABULARY)
    assert grammar.VOCABULARY[:2] == ("<bos>", "<eos>")


def test_captions_name_every_object_of_their_scene_with_its_count():
    for i in range(300):
        s = generate.scene(3, "train", i)
        counts = {}
        for o in s["objects"]:
            counts[o["kind"]] = counts.get(o["kind"], 0) + 1
        assert grammar.named_kinds(s["words"]) == counts, (s["words"], counts)
        assert all(w in VOCAB for w in s["words"])


def test_objects_fit_the_image_at_20_to_35_percent_and_never_overlap():
    # 20-35 % of the side rounded to whole pixels at 96 px: 19 to 34 pixels
    for i in range(300):
        s = generate.scene(4, "train", i)
        assert 1 <= len(s["objects"]) <= 4
        for o in s["objects"]:
            assert 19 <= round(o["size"] * 96) <= 34 and o["size"] * 96 == round(o["size"] * 96)
            assert 0 <= o["x"] and o["x"] + o["size"] <= 1 + 1e-9 and 0 <= o["y"] and o["y"] + o["size"] <= 1 + 1e-9
        boxes = [o["box"] for o in s["objects"]]
        for a in range(len(boxes)):
            for b in range(a + 1, len(boxes)):
                p, q = boxes[a], boxes[b]
                assert p[2] <= q[0] or q[2] <= p[0] or p[3] <= q[1] or q[3] <= p[1], s


def test_relations_and_orders_match_the_geometry():
    for i in range(400):
        s = generate.scene(5, "train", i)
        kinds = sorted({o["kind"] for o in s["objects"]})

        def centre(k, axis):
            return np.mean([o["xy"[axis]] + o["size"] / 2 for o in s["objects"] if o["kind"] == k])
        if len(kinds) == 2:
            first, second = kinds
            words = " ".join(s["words"])
            dx, dy = centre(second, 0) - centre(first, 0), centre(second, 1) - centre(first, 1)
            expected = ("to the left of" if dx > 0 else "to the right of") if abs(dx) > abs(dy) else \
                ("above" if dy > 0 else "below")
            assert f" {expected} " in words, (words, dx, dy)
        if len(kinds) == 3:
            named = [objects.KIND_OF_WORD[w] for w in s["words"] if w in objects.KIND_OF_WORD]
            assert named == sorted(kinds, key=lambda k: centre(k, 0))


def test_training_never_shows_a_held_out_pair_and_every_held_out_scene_has_one():
    assert len(generate.HELD_OUT) == generate.HELD_OUT_COUNT
    seen_kinds = set()
    for i in range(2000):
        kinds = {o["kind"] for o in generate.scene(6, "train", i)["objects"]}
        seen_kinds |= kinds
        assert not generate.has_held_out_pair(kinds), kinds
    assert seen_kinds == set(range(len(objects.OBJECTS)))
    for i in range(300):
        kinds = {o["kind"] for o in generate.scene(6, "held-out", i)["objects"]}
        assert generate.has_held_out_pair(kinds), kinds


def test_scenes_are_a_function_of_seed_split_and_index():
    a, b = generate.scene(7, "train", 12), generate.scene(7, "train", 12)
    assert a == b and generate.scene(7, "train", 13) != a and generate.scene(8, "train", 12) != a
    assert np.array_equal(generate.render(a), generate.render(b))
    image = generate.render(a)
    assert image.shape == (96, 96, 3) and image.dtype == np.uint8


def test_kind_weights_change_training_scenes_only_and_are_checked():
    three = [generate.scene(7, "train", i, [0, 0, 1]) for i in range(40)]
    assert all(len({o["kind"] for o in s["objects"]}) == 3 for s in three)
    one = [generate.scene(7, "train", i, [1, 0, 0]) for i in range(40)]
    assert all(len({o["kind"] for o in s["objects"]}) == 1 for s in one)
    default = [generate.scene(7, "train", i) for i in range(40)]
    assert default == [generate.scene(7, "train", i, [generate.KIND_COUNT_WEIGHTS[k] for k in (1, 2, 3)])
                       for i in range(40)]
    assert generate.scene(7, "held-out", 3, [0, 0, 1]) == generate.scene(7, "held-out", 3)
    for bad in ([0.5, 0.5], [0.5, 0.6, -0.1], [0.2, 0.2, 0.2]):
        try:
            generate.scene(7, "train", 0, bad)
        except ValueError as error:
            assert "kind_weights" in str(error)
        else:
            raise AssertionError(f"accepted kind_weights {bad}")


def test_the_resize_is_pils_bilinear_and_alpha_goes_over_white():
    rng = np.random.default_rng(0)
    for h, w in ((200, 150), (50, 70), (96, 96), (300, 97), (1, 1)):
        image = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        ours = pixels.resize(pixels.to_rgb(image), 96)
        pil = np.asarray(Image.fromarray(image).resize((96, 96), Image.BILINEAR)).astype(np.float64)
        assert np.abs(ours - pil).max() <= 1.0, (h, w)  # PIL rounds between its two passes
    rgba = np.zeros((4, 4, 4), dtype=np.uint8)
    rgba[..., 0] = 100
    rgba[0, 0, 3] = 255
    rgb = pixels.to_rgb(rgba)
    assert rgb[0, 0, 0] == 100 and rgb[1, 1, 0] == 255 and rgb[1, 1, 1] == 255
    for bad in (np.zeros((4, 4)), np.zeros((4, 4, 2)), np.zeros((0, 4, 3))):
        try:
            pixels.to_rgb(bad)
        except ValueError as error:
            assert "[height][width][3 or 4]" in str(error)
        else:
            raise AssertionError(f"accepted {bad.shape}")


def test_splitmix64_gives_the_published_sequence():
    rng = reference.SplitMix64(0)
    assert [rng.next() for _ in range(2)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4]
    assert reference.sample_cell(np.array([0.0, 0.25, 0.75]), type("R", (), {"uniform": lambda self: 0.25})()) == 2
    assert reference.sample_cell(np.array([0.5, 0.5, 0.0]), type("R", (), {"uniform": lambda self: 1 - 1e-17})()) == 1


def tiny(start="mean"):
    sizes = {**make_fixture.SIZES, "start": start} if start != "mean" else make_fixture.SIZES
    return make_fixture.tiny_model(3, sizes), fileformat.architecture(len(grammar.VOCABULARY), sizes)


def test_batch_norm_folding_computes_what_the_trained_network_computes():
    m, arch = tiny()
    image = make_fixture.tiny_image()
    prepared = pixels.prepare(image, 16, model.PIXEL_MEAN, model.PIXEL_STD)
    with torch.no_grad():
        expected = m.double().encoder(torch.from_numpy(prepared).double()[None])[0].numpy()
    folded = reference.encode(fileformat.from_torch(m), arch, prepared.astype(np.float64))
    assert np.abs(folded - expected).max() < 1e-10
    unfolded = dict(fileformat.from_torch(m))
    unfolded["encoder.conv0.weight"] = m.encoder.convs[0].weight.detach().double().numpy().transpose(0, 2, 3, 1)
    assert np.abs(reference.encode(unfolded, arch, prepared.astype(np.float64)) - expected).max() > 1e-3


def test_a_file_loads_back_for_training_with_batch_norm_unfolded():
    m, _ = tiny()
    tensors = fileformat.from_torch(m)
    again = model.Captioner(len(grammar.VOCABULARY), make_fixture.SIZES).double()
    calibration = torch.from_numpy(np.stack([pixels.prepare(make_fixture.tiny_image(), 16, model.PIXEL_MEAN,
                                                            model.PIXEL_STD)] * 4)).double()
    fileformat.to_torch(tensors, again, calibration)
    again.eval()
    back = fileformat.from_torch(again)
    assert set(back) == set(tensors)
    assert max(float(np.abs(back[k] - tensors[k]).max()) for k in tensors) < 1e-9
    # in training mode the BatchNorm of the first block sees the calibration's own statistics: identity
    again.train()
    with torch.no_grad():
        conv = again.encoder.convs[0](calibration.permute(0, 3, 1, 2))
        assert torch.allclose(again.encoder.norms[0](conv), conv, atol=1e-6)


def write_tiny(path, dtype, start="mean"):
    m, arch = tiny(start)
    meta = fileformat.metadata(arch, grammar.VOCABULARY, objects.metadata(), model.PIXEL_MEAN, model.PIXEL_STD,
                               {"test": True}, "test")
    fileformat.write(path, fileformat.from_torch(m), meta, dtype=dtype)
    return m


def test_the_file_round_trips_and_refuses_other_tensors():
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "m.safetensors"
        m = write_tiny(path, "f32")
        tensors, meta = fileformat.read(path)
        original = fileformat.from_torch(m)
        assert set(tensors) == set(original) == set(fileformat.shapes(meta["architecture"]))
        assert all(np.abs(tensors[k] - original[k]).max() < 1e-6 for k in tensors)
        assert meta["vocabulary"] == list(grammar.VOCABULARY) and meta["bos_id"] == 0 and meta["eos_id"] == 1
        assert meta["objects"][0] == {"name": "cat", "plural": "cats", "hexcode": "1F408"} and len(meta["objects"]) == 32
        assert meta["grid"] == [4, 4] and meta["image_size"] == 16
        for dtype, tolerance in (("f16", 2e-3), ("int8", 0.02)):
            write_tiny(path, dtype)
            again, _ = fileformat.read(path)
            assert all(np.abs(again[k] - original[k]).max() <= tolerance * max(1, np.abs(original[k]).max())
                       for k in again), dtype
        arch = meta["architecture"]
        raw = meta_strings = fileformat.metadata(arch, grammar.VOCABULARY, objects.metadata(), model.PIXEL_MEAN,
                                                 model.PIXEL_STD, {}, "test")
        broken = dict(original)
        broken["hard.gate.bias"] = np.zeros(2)
        for tensors_, expected in ((broken, "hard.gate.bias"), ({k: v for k, v in original.items() if k != "encoder.position"},
                                                               "encoder.position")):
            try:
                fileformat.write(path, tensors_, meta_strings)
            except ValueError as error:
                assert expected in str(error), error
            else:
                raise AssertionError("wrote a file with the wrong tensors")
        assert raw["format"] == fileformat.FORMAT


@pytest.mark.parametrize("start", model.STARTS)
def test_the_numpy_reference_decodes_as_the_torch_model_does(start):
    m, arch = tiny(start)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "m.safetensors"
        write_tiny(path, "f32", start)
        tensors, meta = fileformat.read(path)
    assert meta["architecture"].get("start", "mean") == start
    assert tensors["decoder.init_h.weight"].shape[1] == (16 if start == "mean+max" else 8)
    for index in range(3):
        image = generate.render(generate.scene(9, "train", index), 40)
        ours = reference.caption(tensors, meta, image)
        x = torch.from_numpy(pixels.prepare(image, 16, model.PIXEL_MEAN, model.PIXEL_STD))[None].double()
        m = m.double()
        with torch.no_grad():
            words, alphas, _ = m.greedy(m.encoder(x), 0, 1)
            ids = words[0].tolist()
            n = ids.index(1) if 1 in ids else len(ids)
            assert ours["words"] == [grammar.VOCABULARY[i] for i in ids[:n]]
            # the file holds F32 weights, the torch model float64 ones
            assert np.abs(np.array(ours["attention"]) - alphas[0, :n].numpy()).max() < 1e-5
            inputs = torch.tensor([[0] + ids[:n]])
            logits, _ = m.teacher_forced(m.encoder(x), inputs)
            log_probs = torch.log_softmax(logits[0], 1)[torch.arange(n), torch.tensor(ids[:n])]
            assert np.abs(np.array(ours["log_probs"]) - log_probs.numpy()).max() < 1e-5
            hard = reference.caption(tensors, meta, image, hard=True, seed=index)
            annotations = m.encoder(x)
            h, c, keys = m.hard.start(annotations)
            previous = torch.tensor([0])
            for t, word in enumerate(hard["words"]):
                logits, _, h, c = m.hard.step(annotations, keys, previous, h, c, torch.tensor([hard["cells"][t]]))
                assert grammar.VOCABULARY[int(logits.argmax())] == word
                previous = logits.argmax(1)
            assert np.array_equal(np.array(hard["attention"]).argmax(1), hard["cells"])


@pytest.mark.parametrize("name", ["captioner-tiny", "captioner-tiny-max"])
def test_the_committed_fixture_is_what_the_reference_computes(name):
    root = Path("tests/data")
    fixture = json.loads((root / f"{name}.json").read_text())
    tensors, meta = fileformat.read(root / fixture["model"])
    image = np.asarray(Image.open(root / fixture["image_png"]))
    assert np.array_equal(image.reshape(-1), np.array(fixture["image"]["data"], dtype=np.uint8))
    soft = reference.caption(tensors, meta, image)
    assert soft["words"] == fixture["soft"]["words"]
    assert np.abs(np.array(soft["attention"]) - np.array(fixture["soft"]["attention"])).max() < 1e-12
    hard = reference.caption(tensors, meta, image, hard=True, seed=7)
    assert hard["cells"] == fixture["hard"]["7"]["cells"] and hard["words"] == fixture["hard"]["7"]["words"]


def test_a_mean_started_file_starts_a_mean_and_max_model_as_it_was():
    # train.py --init --start mean+max: the maximum's half of init_h and init_c starts at zero
    m, _ = tiny()
    grown = model.Captioner(len(grammar.VOCABULARY), {**make_fixture.SIZES, "start": "mean+max"}).double()
    calibration = torch.from_numpy(np.stack([pixels.prepare(make_fixture.tiny_image(), 16, model.PIXEL_MEAN,
                                                            model.PIXEL_STD)] * 4)).double()
    fileformat.to_torch(fileformat.from_torch(m), grown, calibration)
    grown.eval()
    m = m.double().eval()
    assert grown.decoder.init_h.weight.shape == (12, 16)
    assert float(grown.decoder.init_h.weight[:, 8:].abs().max()) == 0.0
    with torch.no_grad():
        annotations = m.encoder(calibration[:1])
        for old, new in zip(m.decoder.start(annotations)[:2], grown.decoder.start(grown.encoder(calibration[:1]))[:2]):
            assert torch.allclose(old, new, atol=1e-9)


def test_metrics_score_captions_and_pointing():
    s = {"words": "a cat to the left of a tree".split(),
         "objects": [{"kind": 0, "x": 0.0, "y": 0.0, "size": 0.25, "box": [0.0, 0.0, 0.25, 0.25]},
                     {"kind": 22, "x": 0.5, "y": 0.5, "size": 0.25, "box": [0.5, 0.5, 0.75, 0.75]}]}
    grid = 12
    inside_cat, inside_tree = 0, 7 * grid + 7
    perfect = metrics.score([s], [s["words"]], [[0, inside_cat, 0, 0, 0, 0, 0, inside_tree]], grid)
    assert perfect["exact"] == 1 and perfect["recall"] == 1 and perfect["precision"] == 1 and perfect["pointing"] == 1
    wrong = metrics.score([s], ["a dog to the left of a tree".split()], [[0, 0, 0, 0, 0, 0, 0, inside_cat]], grid)
    assert wrong["exact"] == 0 and wrong["recall"] == 0.5 and wrong["precision"] == 0.5 and wrong["pointing"] == 0
    assert metrics.bleu4([s["words"]], [s["words"]]) == 1.0
    assert metrics.bleu4([s["words"]], [["a", "cat"]]) == 0.0


def test_word_dropout_hides_previous_words_in_training_only():
    m, _ = tiny()
    m = m.double()
    x = torch.from_numpy(pixels.prepare(make_fixture.tiny_image(), 16, model.PIXEL_MEAN, model.PIXEL_STD)).double()[None]
    a = torch.tensor([[VOCAB["<bos>"], VOCAB["a"], VOCAB["cat"]]])
    b = torch.tensor([[VOCAB["<bos>"], VOCAB["two"], VOCAB["trees"]]])
    with torch.no_grad():
        annotations = m.encoder(x)
        plain_a, _ = m.teacher_forced(annotations, a)
        plain_b, _ = m.teacher_forced(annotations, b)
        hidden_a, _ = m.teacher_forced(annotations, a, word_dropout=1.0)
        hidden_b, _ = m.teacher_forced(annotations, b, word_dropout=1.0)
        none, _ = m.teacher_forced(annotations, a, word_dropout=0.0)
    assert torch.equal(none, plain_a)
    assert not torch.allclose(plain_a[:, 1:], plain_b[:, 1:])  # the words seen change what follows ...
    assert torch.allclose(hidden_a, hidden_b)                  # ... unless every one after <bos> is hidden
    assert torch.allclose(hidden_a[:, 0], plain_a[:, 0])       # <bos> is never hidden


def test_the_concepts_head_reads_every_kind_of_a_scene_from_the_mean_annotation():
    from . import train
    scenes = [generate.scene(11, "train", i, [0, 0, 1]) for i in range(3)]
    kinds = train.kinds_batch(scenes)
    assert kinds.shape == (3, len(objects.NAMES))
    for row, s in zip(kinds, scenes):
        assert set(torch.nonzero(row)[:, 0].tolist()) == {o["kind"] for o in s["objects"]}
    m, _ = tiny()
    head = torch.nn.Linear(m.sizes["channels"][-1], len(objects.NAMES))
    images = torch.from_numpy(np.stack([pixels.prepare(make_fixture.tiny_image(), 16, model.PIXEL_MEAN,
                                                       model.PIXEL_STD)] * 3))
    inputs, targets, mask = train.token_batch(scenes)
    batch = (images, inputs, targets, mask, kinds)
    plain, parts = train.soft_loss(m, batch, 0.01)
    assert "concepts" not in parts
    with_head, parts = train.soft_loss(m, batch, 0.01, concepts=head, concept_weight=0.5)
    assert abs(with_head.item() - (plain.item() + 0.5 * parts["concepts"])) < 1e-4
    with_head.backward()
    assert m.encoder.convs[0].weight.grad is not None and head.weight.grad.abs().sum() > 0
