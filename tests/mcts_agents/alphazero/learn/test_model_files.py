"""Damaged and foreign model files: ``load_model``, ``load_checkpoint``, the ``az:`` and
``policy:`` specs and the command line refuse each with a ``ModelFileError`` naming the file and
what is wrong (a text file, a truncated file, a tensor with flipped bytes, weights of another
dtype or shape, a NaN, a spec that claims a huge network), never an ``IndexError`` or a
network loaded with changed weights."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from mcts_agents import open_model  # noqa: E402
from mcts_agents.agents.specs import make_agent  # noqa: E402
from mcts_agents.alphazero.learn import (  # noqa: E402
    NetConfig,
    TrainConfig,
    Trainer,
    build_net,
    load_checkpoint,
    load_model,
    save_checkpoint,
    save_net,
)
from mcts_agents.cli.main import main  # noqa: E402
from mcts_agents.envs.games.mnk import MNK  # noqa: E402
from mcts_agents.errors import CheckpointError, ModelFileError  # noqa: E402

GAME = MNK(3, 3, 3)
TINY = NetConfig(channels=4, blocks=0, value_hidden=4)


@pytest.fixture
def net_file(tmp_path: Path) -> Path:
    path = tmp_path / "net.pt"
    save_net(path, build_net(GAME, TINY, seed=0), GAME)
    return path


def flip_member_byte(path: Path, member: str, out: Path) -> None:
    """A copy of ``path`` with one byte of ``member``'s data changed (its CRC left as it was)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        (info,) = [i for i in archive.infolist() if i.filename.endswith(member)]
    offset = info.header_offset
    name_length, extra_length = struct.unpack("<HH", data[offset + 26 : offset + 30])
    data[offset + 30 + name_length + extra_length + 3] ^= 0x7F
    out.write_bytes(bytes(data))


def resave(path: Path, out: Path, change: object) -> None:
    """``path``'s content changed by ``change(content)`` and written with a correct archive."""
    content = torch.load(path, weights_only=True)
    change(content)  # type: ignore[operator]
    torch.save(content, out)


def test_a_text_file_is_refused_as_a_model_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.pt"
    path.write_text("hello world\n")
    with pytest.raises(ModelFileError, match=r"notes\.pt' is not a readable network .*zip"):
        load_model(path)
    with pytest.raises(ModelFileError, match=r"notes\.pt' is not a readable checkpoint"):
        load_checkpoint(path)


def test_a_truncated_model_file_is_refused(net_file: Path, tmp_path: Path) -> None:
    data = net_file.read_bytes()
    for length in (10, len(data) // 2, len(data) - 30):
        cut = tmp_path / "cut.pt"
        cut.write_bytes(data[:length])
        with pytest.raises(ModelFileError, match=r"cut\.pt' is not a readable network.*truncated"):
            load_model(cut)


def test_a_tensor_with_flipped_bytes_fails_the_archive_crc_check(
    net_file: Path, tmp_path: Path
) -> None:
    damaged = tmp_path / "flipped.pt"
    flip_member_byte(net_file, "data/0", damaged)
    with pytest.raises(ModelFileError, match=r"flipped\.pt' is damaged: its member .*data/0.*CRC"):
        load_model(damaged)


def test_a_checkpoint_with_flipped_bytes_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "checkpoint.pt"
    save_checkpoint(path, Trainer(build_net(GAME, TINY), TrainConfig()), {"x": 1}, GAME)
    damaged = tmp_path / "damaged.pt"
    flip_member_byte(path, "data/1", damaged)
    with pytest.raises(ModelFileError, match=r"damaged\.pt' is damaged: .*CRC"):
        load_checkpoint(damaged)
    assert load_checkpoint(path).extra == {"x": 1}  # the intact one loads


def test_weights_of_another_dtype_or_shape_are_refused(net_file: Path, tmp_path: Path) -> None:
    def doubles(content: dict) -> None:
        content["weights"]["policy.bias"] = content["weights"]["policy.bias"].double()

    def longer(content: dict) -> None:
        content["weights"]["policy.bias"] = torch.zeros(10)

    def missing(content: dict) -> None:
        del content["weights"]["value.bias"]

    out = tmp_path / "changed.pt"
    resave(net_file, out, doubles)
    with pytest.raises(ModelFileError, match=r"'policy\.bias' in .*changed\.pt' is torch\.float64"):
        load_model(out)
    resave(net_file, out, longer)
    with pytest.raises(ModelFileError, match=r"\(10,\); the network needs torch\.float32 \(9,\)"):
        load_model(out)
    resave(net_file, out, missing)
    with pytest.raises(ModelFileError, match=r"missing weights \['value\.bias'\]"):
        load_model(out)


def test_a_weight_that_is_not_finite_is_refused(net_file: Path, tmp_path: Path) -> None:
    def nan(content: dict) -> None:
        content["weights"]["stem.0.weight"][0, 0, 0, 0] = float("nan")

    out = tmp_path / "nan.pt"
    resave(net_file, out, nan)
    with pytest.raises(ModelFileError, match=r"not finite .*/weights/stem\.0\.weight"):
        load_model(out)


def test_a_spec_that_claims_a_huge_network_is_refused_before_it_is_built(
    net_file: Path, tmp_path: Path
) -> None:
    def huge(content: dict) -> None:
        spec = json.loads(content["net"])
        spec["config"]["channels"] = 1_000_000  # a 3x3 conv of 10^12 weights: 4 TB
        content["net"] = json.dumps(spec)

    out = tmp_path / "huge.pt"
    resave(net_file, out, huge)
    with pytest.raises(ModelFileError, match=r"huge\.pt' cannot be rebuilt: .*channels must"):
        load_model(out)


def test_a_file_of_other_contents_is_refused(net_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "other.pt"
    resave(net_file, out, lambda content: content.update(weights=[1, 2]))
    with pytest.raises(ModelFileError, match=r"other\.pt' has no weights"):
        load_model(out)
    resave(net_file, out, lambda content: content.update(kind="checkpoint"))
    with pytest.raises(ModelFileError, match=r"other\.pt' is damaged: its 'trainer' is NoneType"):
        load_model(out)
    assert issubclass(ModelFileError, CheckpointError) and issubclass(ModelFileError, ValueError)


def test_model_specs_refuse_a_path_that_is_not_a_model(tmp_path: Path) -> None:
    path = tmp_path / "passwd"
    path.write_text("root:x:0:0:root:/root:/bin/bash\n")
    with pytest.raises(ModelFileError, match=r"passwd' is not a readable network"):
        open_model(path)
    for spec in (f"az:model={path}", f"policy:model={path}"):  # a SpecError: a ValueError
        with pytest.raises(ValueError, match=r"passwd' is not a readable network"):
            make_agent(spec)


def test_the_command_line_refuses_a_damaged_model_in_one_line(
    net_file: Path, tmp_path: Path
) -> None:
    damaged = tmp_path / "flipped.pt"
    flip_member_byte(net_file, "data/0", damaged)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["arena", "tic_tac_toe", "--agents", f"az:model={damaged}", "random",
                     "--games", "2", "--no-progress"])  # fmt: skip
    assert code == 2, err.getvalue()
    assert "Traceback" not in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1
    assert "flipped.pt' is damaged" in err.getvalue()
