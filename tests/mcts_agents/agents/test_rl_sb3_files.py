"""Stable-Baselines3 model files (``rl.sb3.load_sb3``, the ``az:``/``policy:`` specs over a
``.zip``): nothing in the file is unpickled (SB3's pickled spaces and policy class are rebuilt
from the file's readable fields, given as its ``custom_objects``); files that pickle anything
else, name another policy class, or are damaged are refused with a ``ModelFileError`` naming
the file."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sb3_contrib = pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from mcts_agents import RandomAgent, SingleAgentVsOpponent  # noqa: E402
from mcts_agents.agents.sb3 import SB3Evaluator, load_sb3  # noqa: E402
from mcts_agents.envs import tic_tac_toe_v0  # noqa: E402
from mcts_agents.errors import ModelFileError  # noqa: E402

torch.set_num_threads(1)


class Payload:
    """Unpickled, it creates the file ``marker`` (what a hostile file would do, harmlessly)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> Any:
        return (open, (str(self.marker), "w"))


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A MaskablePPO (untrained: loading is what is tested) saved as ``model.save`` does."""
    env = SingleAgentVsOpponent(tic_tac_toe_v0.env(), RandomAgent(), learner="random", seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=16, seed=0, device="cpu")
    path = tmp_path_factory.mktemp("sb3") / "ppo.zip"
    model.save(path)
    return path


def rewrite(path: Path, out: Path, change: Any) -> None:
    """``path`` with its ``data`` changed by ``change(data)``, archived afresh (valid CRCs)."""
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            content = source.read(name)
            if name == "data":
                data = json.loads(content)
                change(data)
                content = json.dumps(data).encode()
            target.writestr(name, content)


def pickled(marker: Path) -> str:
    return base64.b64encode(pickle.dumps(Payload(marker))).decode()


def test_loading_a_model_file_unpickles_nothing_in_it(saved: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"

    def hostile(data: dict) -> None:
        for key in ("policy_class", "observation_space", "action_space", "lr_schedule"):
            data[key][":serialized:"] = pickled(marker)

    rewrite(saved, tmp_path / "hostile.zip", hostile)
    evaluator = load_sb3(tmp_path / "hostile.zip", "cpu")
    assert not marker.exists()
    original = SB3Evaluator(sb3_contrib.MaskablePPO.load(saved, device="cpu"))
    observations = np.random.default_rng(0).integers(0, 2, (6, 3, 3, 2)).astype(np.int8)
    masks = np.random.default_rng(1).random((6, 9)) < 0.7
    masks[:, 0] = True
    mine = evaluator.evaluate_batch(observations, masks)
    theirs = original.evaluate_batch(observations, masks)
    assert np.array_equal(mine[0], theirs[0]) and np.array_equal(mine[1], theirs[1])
    assert evaluator.policy.observation_space == original.policy.observation_space
    assert evaluator.policy.action_space == original.policy.action_space


def test_a_model_that_pickles_other_objects_is_refused(saved: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"

    def extra(data: dict) -> None:
        data["policy_kwargs"] = {":type:": "<class 'dict'>", ":serialized:": pickled(marker)}

    rewrite(saved, tmp_path / "extra.zip", extra)
    with pytest.raises(ModelFileError, match=r"extra\.zip' .*stores policy_kwargs as pickled"):
        load_sb3(tmp_path / "extra.zip")
    assert not marker.exists()


def test_a_model_of_another_policy_class_is_refused(saved: Path, tmp_path: Path) -> None:
    def other(data: dict) -> None:
        data["policy_class"]["__init__"] = "<function Evil.__init__ at 0x7f>"

    rewrite(saved, tmp_path / "other.zip", other)
    with pytest.raises(ModelFileError, match=r"other\.zip' .*policy class 'Evil' is not one of"):
        load_sb3(tmp_path / "other.zip")


def test_a_damaged_or_foreign_sb3_file_is_refused(saved: Path, tmp_path: Path) -> None:
    data = bytearray(saved.read_bytes())
    with zipfile.ZipFile(saved) as archive:
        info = archive.getinfo("policy.pth")
    data[info.header_offset + 30 + len(info.filename) + len(info.extra) + 200] ^= 0x55
    (tmp_path / "damaged.zip").write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=r"damaged\.zip' is damaged: .*policy\.pth.*CRC"):
        load_sb3(tmp_path / "damaged.zip")
    (tmp_path / "text.zip").write_text("not a model\n")
    with pytest.raises(ModelFileError, match=r"text\.zip' is not a MaskablePPO model"):
        load_sb3(tmp_path / "text.zip")


@pytest.mark.parametrize(
    ("where", "value", "match"),
    [
        # 1 TiB of bounds from a file of 60 KB: a raw MemoryError before
        (("observation_space", "_shape"), [2**20, 2**20], r"_shape \[1048576, 1048576\]"),
        # 90,000 inputs: SB3 built layers for them before its weights were found to differ
        (("observation_space", "_shape"), [300, 300], r"_shape \[300, 300\]"),
        (("observation_space", "_shape"), [3, 0, 2], r"_shape \[3, 0, 2\]"),
        (("observation_space", "_shape"), [3, -3, 2], r"_shape \[3, -3, 2\]"),
        (("observation_space", "dtype"), "V100000000000", "dtype 'V100000000000'"),
        (("action_space", "n"), 2**40, r"1099511627776 actions.* 9"),
        (("action_space", "n"), 10, "10 actions.* 9"),
        (("policy_kwargs",), {"net_arch": [20000, 20000]}, "net_arch.*20000"),
        (("policy_kwargs",), {"net_arch": {"pi": [64], "vf": [2**40]}}, "net_arch.*1099511627776"),
    ],
)
def test_a_size_the_weights_do_not_have_is_refused_before_anything_is_built(
    saved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: Any, value: Any, match: str
) -> None:
    def change(data: dict) -> None:
        target = data
        for key in where[:-1]:
            target = target[key]
        target[where[-1]] = value

    def built(*args: Any, **kwargs: Any) -> None:
        pytest.fail("SB3 was asked to build the model")

    rewrite(saved, tmp_path / "sized.zip", change)
    monkeypatch.setattr(sb3_contrib.MaskablePPO, "load", built)
    with pytest.raises(ModelFileError, match=rf"sized\.zip' .*{match}"):
        load_sb3(tmp_path / "sized.zip")


def test_data_nested_200000_deep_is_refused_naming_the_file(saved: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(saved) as source, zipfile.ZipFile(tmp_path / "deep.zip", "w") as target:
        for name in source.namelist():
            content = source.read(name)
            if name == "data":
                content = ('{"a": ' + "[" * 200_000 + "]" * 200_000 + "}").encode()
            target.writestr(name, content)
    with pytest.raises(ModelFileError, match=r"deep\.zip' .*nests deeper"):
        load_sb3(tmp_path / "deep.zip")
