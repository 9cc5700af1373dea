"""Trained networks as agents through specs: ``az:model=DIR,simulations=N`` (PUCT search) and
``policy:model=DIR`` (the raw policy) in ``play``, ``arena`` and the RL wrapper's opponent
spec; models of another game and bad paths refused with messages that name them."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mcts_agents import RandomAgent, make_agent, play_game, play_match  # noqa: E402
from mcts_agents.agents import parse_agent_spec  # noqa: E402
from mcts_agents.agents.models import PriorAgent, PUCTAgent  # noqa: E402
from mcts_agents.alphazero.learn import (  # noqa: E402
    NetConfig,
    RunConfig,
    TorchEvaluator,
    TrainConfig,
    build_net,
    load_net,
    save_net,
    train,
)
from mcts_agents.cli.main import main  # noqa: E402
from mcts_agents.envs import connect_four_v0, tic_tac_toe_v0  # noqa: E402
from mcts_agents.envs.games.connect_four import ConnectFour  # noqa: E402
from mcts_agents.envs.games.mnk import MNK  # noqa: E402
from mcts_agents.errors import CheckpointError, InvalidOptionError, SpecError  # noqa: E402
from mcts_agents.rl import make_vs_agent  # noqa: E402

TTT = MNK(3, 3, 3, name="tic_tac_toe")  # the tic_tac_toe env's rules core
SMALL = NetConfig(channels=8, blocks=1, value_hidden=8)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A training run's folder, a few steps in."""
    folder = tmp_path_factory.mktemp("run")
    config = RunConfig(
        net=SMALL, training=TrainConfig(batch_size=16), simulations=8, search_batch=4,
        games_per_iteration=2, steps_per_iteration=4, gate_every=0, seed=1,
    )  # fmt: skip
    train(TTT, folder, config=config, steps=8)
    return folder


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_az_and_policy_specs_build_agents_over_the_network(run: Path) -> None:
    az = make_agent(f"az:model={run},simulations=12,batch_size=4,c=2", seed=5)
    assert isinstance(az, PUCTAgent) and az.seed == 5
    assert az.budget.iterations == 12 and az.budget.time_limit is None
    assert (az.config.selection, az.config.batch_size, az.config.c) == ("puct", 4, 2.0)
    assert isinstance(az.config.evaluator, TorchEvaluator)
    assert az.model is not None and az.model.game == repr(TTT)
    weights = az.config.evaluator.net.state_dict()
    assert all(torch.equal(v, load_net(run).state_dict()[k]) for k, v in weights.items())
    timed = make_agent(f"az:model={run},time=0.05")
    assert timed.budget.time_limit == 0.05 and timed.budget.iterations is None
    assert make_agent(f"az:model={run},iterations=7").budget.iterations == 7
    policy = make_agent(f"policy:model={run / 'best.pt'},temperature=0.5,device=cpu", seed=1)
    assert isinstance(policy, PriorAgent) and policy.temperature == 0.5
    assert policy.evaluator.device == torch.device("cpu")


def test_the_policy_agent_plays_the_networks_argmax(run: Path) -> None:
    env = tic_tac_toe_v0.env()
    env.reset(seed=0)
    agent = make_agent(f"policy:model={run}")
    net = load_net(run)
    game, state = env.unwrapped.game, env.unwrapped.state
    for move in (4, 0, 8):
        with torch.no_grad():
            observation = torch.from_numpy(np.asarray(game.observation(state, game.to_play(state))))
            logits = net(observation[None])[0][0].numpy()
        legal = list(game.legal_actions(state))
        assert agent.act(env) == legal[int(np.argmax(logits[legal]))]
        env.step(move)
        state = env.unwrapped.state


def test_specs_play_legal_moves_in_the_arena_and_against_random(run: Path) -> None:
    az, policy = f"az:model={run},simulations=16,batch_size=4", f"policy:model={run}"
    result = play_match(tic_tac_toe_v0.env, [az, policy], games=2, seed=0)
    for record in result.records:
        assert 5 <= len(record["moves"]) <= 9 and sum(record["returns"]) == 0
    for spec in (az, f"{policy},temperature=1"):
        for seed in range(2):
            env = tic_tac_toe_v0.env()
            env.reset(seed=seed)
            players = {"player_0": make_agent(spec, seed=seed), "player_1": RandomAgent(seed)}
            play_game(env, players, check_legal=True)  # an illegal move raises
            assert not env.agents


def test_the_cli_plays_and_runs_an_arena_with_model_specs(run: Path) -> None:
    az, policy = f"az:model={run},simulations=8", f"policy:model={run}"
    code, out, err = cli("play", "tic_tac_toe", "--p0", az, "--p1", policy)
    assert code == 0, err
    assert "result: player_0" in out and "8 iterations" in out  # the search's summary
    code, out, err = cli("arena", "tic_tac_toe", "--agents", az, policy, "--games", "2",
                         "--no-progress")  # fmt: skip
    assert code == 0, err
    assert az in out and policy in out


def test_a_model_is_an_opponent_of_the_rl_wrapper(run: Path) -> None:
    env = make_vs_agent("tic_tac_toe", opponent=f"az:model={run},simulations=8", seed=3)
    _, info = env.reset()
    done = False
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert "returns" in info and "illegal_action" not in info


def test_a_model_of_another_game_is_refused(run: Path, tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match=r"was trained for MNK\(m=3.*not for ConnectFour"):
        play_match(connect_four_v0.env, [f"az:model={run}", "random"], games=1)
    code, _, err = cli("arena", "connect_four", "--agents", f"policy:model={run}", "random",
                       "--games", "1", "--no-progress")  # fmt: skip
    assert code == 2 and "was trained for MNK(m=3, n=3, k=3" in err
    # a net that does not name its game is refused by its shape
    save_net(tmp_path / "c4.pt", build_net(ConnectFour(), SMALL))
    with pytest.raises(CheckpointError, match=r"takes observations of shape \(6, 7, 2\)"):
        play_match(tic_tac_toe_v0.env, [f"policy:model={tmp_path / 'c4.pt'}", "random"], games=1)


def test_model_paths_are_text_and_bad_files_are_named(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "007").mkdir()
    save_net(tmp_path / "007" / "best.pt", load_net(run), game=TTT)
    monkeypatch.chdir(tmp_path)
    spec = parse_agent_spec("policy:model=007")  # not the number 7
    assert spec.options["model"] == "007"
    (tmp_path / "junk.pt").write_text("not a network")
    with pytest.raises(SpecError, match=r"'policy:model=junk\.pt'.*not a readable network"):
        parse_agent_spec("policy:model=junk.pt")
    with pytest.raises(SpecError, match="device 'nowhere'"):
        parse_agent_spec("az:model=007,device=nowhere")
    with pytest.raises(SpecError, match="temperature must be a finite number >= 0"):
        parse_agent_spec("policy:model=007,temperature=-1")


@pytest.fixture
def many_threads() -> object:
    """torch on 3 threads during the test; the az tests' 1 after it."""
    torch.set_num_threads(3)
    yield
    torch.set_num_threads(1)


def test_model_agents_set_torch_to_one_thread(run: Path, many_threads: object) -> None:
    from mcts_agents import open_model

    assert torch.get_num_threads() == 3
    make_agent(f"az:model={run},simulations=4")
    assert torch.get_num_threads() == 1
    torch.set_num_threads(3)
    make_agent(f"policy:model={run}")
    assert torch.get_num_threads() == 1
    open_model(run, threads=2)
    assert torch.get_num_threads() == 2
    open_model(run, threads=None)  # left as it is
    assert torch.get_num_threads() == 2
    with pytest.raises(InvalidOptionError, match="threads must be an int >= 1 or None, got 0"):
        open_model(run, threads=0)


def test_the_specs_choose_torchs_threads(run: Path, many_threads: object) -> None:
    make_agent(f"az:model={run},simulations=4,threads=2")
    assert torch.get_num_threads() == 2
    make_agent(f"policy:model={run},threads=none")  # left as it is
    assert torch.get_num_threads() == 2
    with pytest.raises(SpecError, match="threads must be an int >= 1 or None, got 0"):
        make_agent(f"policy:model={run},threads=0")


def test_the_arena_plays_model_agents_on_one_thread(run: Path, many_threads: object) -> None:
    code, _, err = cli("arena", "tic_tac_toe", "--agents", f"az:model={run},simulations=4",
                       "random", "--games", "2", "--no-progress")  # fmt: skip
    assert code == 0, err
    assert torch.get_num_threads() == 1
