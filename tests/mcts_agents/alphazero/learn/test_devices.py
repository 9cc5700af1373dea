"""A device this machine lacks (``cuda`` without CUDA) is refused with an
``InvalidOptionError`` naming the device and that CUDA is not available, everywhere a device is
given: ``TorchEvaluator``, ``train``, ``open_model`` and the ``az:`` spec, ``mcts-agents train``
(one line, exit code 2); never torch's ``AssertionError``. CUDA is hidden with monkeypatch, so
the tests mean the same on a machine with a GPU."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from mcts_agents import open_model  # noqa: E402
from mcts_agents.agents.specs import make_agent  # noqa: E402
from mcts_agents.alphazero.learn import (  # noqa: E402
    NetConfig,
    TorchEvaluator,
    build_net,
    resolve_device,
    save_net,
)
from mcts_agents.alphazero.learn import train as az_train  # noqa: E402
from mcts_agents.cli.main import main  # noqa: E402
from mcts_agents.envs.games.mnk import MNK  # noqa: E402
from mcts_agents.errors import InvalidOptionError  # noqa: E402

GAME = MNK(3, 3, 3)
TINY = NetConfig(channels=4, blocks=0, value_hidden=4)
NO_CUDA = r"device 'cuda(:0)?': CUDA is not available on this machine"


@pytest.fixture
def no_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


def test_resolve_device_refuses_cuda_without_cuda(no_cuda: None) -> None:
    with pytest.raises(InvalidOptionError, match=NO_CUDA + r" .*use device cpu"):
        resolve_device("cuda")
    with pytest.raises(InvalidOptionError, match=NO_CUDA):
        resolve_device(torch.device("cuda:0"))
    assert resolve_device(None) == torch.device("cpu")
    assert resolve_device("cpu") == torch.device("cpu")


def test_resolve_device_refuses_unknown_names_and_types() -> None:
    with pytest.raises(InvalidOptionError, match=r"device 'nowhere'"):
        resolve_device("nowhere")
    with pytest.raises(InvalidOptionError, match=r"device 'meta': expected one of cpu, cuda"):
        resolve_device("meta")
    with pytest.raises(InvalidOptionError, match=r"torch device name .* got 3"):
        resolve_device(3)


def test_torch_evaluator_refuses_cuda_without_cuda(no_cuda: None) -> None:
    with pytest.raises(InvalidOptionError, match=NO_CUDA):
        TorchEvaluator(build_net(GAME, TINY), "cuda")


def test_train_refuses_cuda_without_cuda_before_making_the_run(
    no_cuda: None, tmp_path: Path
) -> None:
    with pytest.raises(InvalidOptionError, match=NO_CUDA):
        az_train(GAME, tmp_path / "run", steps=1, device="cuda")
    assert not (tmp_path / "run").exists()


def test_model_specs_refuse_cuda_without_cuda(no_cuda: None, tmp_path: Path) -> None:
    path = tmp_path / "net.pt"
    save_net(path, build_net(GAME, TINY), GAME)
    with pytest.raises(InvalidOptionError, match=NO_CUDA):
        open_model(path, "cuda")
    with pytest.raises(ValueError, match=NO_CUDA):
        make_agent(f"az:model={path},device=cuda")


def test_the_train_command_refuses_cuda_without_cuda_in_one_line(
    no_cuda: None, tmp_path: Path
) -> None:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["train", "tic_tac_toe", "--out", str(tmp_path / "run"), "--steps", "1",
                     "--device", "cuda"])  # fmt: skip
    assert code == 2 and out.getvalue() == ""
    assert "Traceback" not in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1
    assert "--device 'cuda': CUDA is not available" in err.getvalue()
    assert not (tmp_path / "run").exists()
