"""``arena.lockstep``: games played together, their moves asked in batches, are the games the
arena plays one by one (same moves, returns, records, ratings)."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mcts_agents.agents.models import PriorAgent
from mcts_agents.agents.policy import PolicyAgent
from mcts_agents.arena import rate
from mcts_agents.arena.entrants import make_entrant
from mcts_agents.arena.lockstep import lockstep_records, use_lockstep
from mcts_agents.arena.rating import unit_tasks
from mcts_agents.arena.tasks import GameTask, run_game
from mcts_agents.envs import tic_tac_toe_v0
from mcts_agents.errors import InvalidOptionError, OptionTypeError
from tests.mcts_agents.tiny_ladder import TINY

ENV = "tic_tac_toe"


class Linear:
    """A made-up model: masked scores of a fixed linear map of the observation. As a batch
    evaluator (priors: a softmax of the scores) and as a policy with ``batch`` (the argmax);
    it records the size of every call."""

    def __init__(self) -> None:
        self.weights = np.random.default_rng(7).normal(size=(18, 9))
        self.sizes: list[int] = []

    def scores(self, observations: np.ndarray) -> np.ndarray:
        flat = np.asarray(observations, dtype=np.float64).reshape(len(observations), -1)
        return flat @ self.weights[: flat.shape[1]]

    def evaluate_batch(self, observations: np.ndarray, legal_masks: np.ndarray) -> Any:
        self.sizes.append(len(observations))
        scores = np.where(legal_masks, np.exp(self.scores(observations)), 0.0)
        return scores / scores.sum(axis=1, keepdims=True), np.zeros(len(observations))

    def batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.sizes.append(len(observations))
        return np.argmax(np.where(masks, self.scores(observations), -np.inf), axis=1)

    def __call__(self, observation: Any, mask: np.ndarray) -> int:
        return int(self.batch(np.asarray(observation)[None], np.asarray(mask)[None])[0])


def same_games(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records by index, without their times (the one field lockstep changes)."""
    return [
        {key: value for key, value in record.items() if key != "times"}
        for record in sorted(records, key=lambda record: record["index"])
    ]


def agents(linear: Linear) -> dict[str, Any]:
    return {
        "mcts": "mcts:iterations=12",
        "python mcts": "mcts:iterations=8,backend=python",
        "policy": lambda: PolicyAgent(linear, name="linear"),
        "prior": lambda: PriorAgent(linear, temperature=1.0),
    }


@pytest.mark.parametrize("name", list(agents(Linear())))
def test_lockstep_plays_the_games_of_the_game_by_game_path(name: str) -> None:
    linear = Linear()
    rated = make_entrant(agents(linear)[name], name)
    levels = [make_entrant(level.spec, level.name) for level in TINY.levels[1:4]]
    tasks = [
        task
        for level in levels
        for task in unit_tasks(tic_tac_toe_v0.env, ENV, (rated, level), 3, range(4), 1)
    ]
    tasks = [replace(task, index=i) for i, task in enumerate(tasks)]  # one game per index
    alone = [run_game(task) for task in tasks]
    calls = len(linear.sizes)
    together = list(lockstep_records(tasks, games=5))
    assert same_games(together) == same_games(alone)
    if name in ("policy", "prior"):  # one forward pass for the games where the model moves
        assert max(linear.sizes[:calls]) == 1 and max(linear.sizes[calls:]) > 1
    assert {record["length"] for record in alone} != {0}


def test_a_rating_in_lockstep_equals_the_game_by_game_rating(tmp_path: Path) -> None:
    linear = Linear()

    def policy() -> PolicyAgent:
        return PolicyAgent(linear, name="linear")

    files = {mode: tmp_path / f"{mode}.jsonl" for mode in ("alone", "lockstep")}
    slow = rate(policy, ENV, games=16, seed=4, batch=8, levels=TINY, out=files["alone"],
                lockstep=False)  # fmt: skip
    calls = len(linear.sizes)
    fast = rate(policy, ENV, games=16, seed=4, batch=8, levels=TINY, out=files["lockstep"],
                lockstep=True)  # fmt: skip
    assert fast == slow
    assert max(linear.sizes[:calls]) == 1 and max(linear.sizes[calls:]) > 1  # batched
    lines = {mode: [json.loads(line) for line in path.open()] for mode, path in files.items()}
    assert lines["alone"][0] == lines["lockstep"][0]  # the same header
    assert same_games(lines["alone"][1:]) == same_games(lines["lockstep"][1:])
    # the lockstep file resumes as any results file: nothing is played again
    after = len(linear.sizes)
    again = rate(policy, ENV, games=16, seed=4, batch=8, levels=TINY, out=files["lockstep"],
                 lockstep=False)  # fmt: skip
    assert again == slow and len(linear.sizes) == after


def test_auto_plays_in_lockstep_only_where_it_can() -> None:
    spec, level = make_entrant("mcts:iterations=4"), make_entrant("random")
    instance = make_entrant(PolicyAgent(Linear(), name="one object"))
    specs = unit_tasks(tic_tac_toe_v0.env, ENV, (spec, level), 0, range(2), 1)
    shared = unit_tasks(tic_tac_toe_v0.env, ENV, (instance, level), 0, range(2), 1)
    assert use_lockstep("auto", specs, 1, "process")
    assert not use_lockstep("auto", specs, 2, "process")
    assert not use_lockstep("auto", shared, 1, "process")
    assert not use_lockstep(False, specs, 1, "process")
    with pytest.raises(InvalidOptionError, match=r"'one object' is one object"):
        use_lockstep(True, shared, 1, "process")
    with pytest.raises(InvalidOptionError, match=r"workers=2"):
        use_lockstep(True, specs, 2, "process")
    with pytest.raises(OptionTypeError, match=r"lockstep must be True, False or 'auto', got 'on'"):
        rate("random", ENV, games=2, levels=TINY, lockstep="on")


@pytest.mark.parametrize(
    "spec", ["policy:model={},temperature=1", "az:model={},simulations=6", "mcts:iterations=7"]
)
def test_a_finished_games_agents_and_env_play_the_next_games_as_new_ones(
    spec: str, net: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcts_agents.arena import lockstep

    rated = make_entrant(spec.format(net), "rated")
    levels = [make_entrant(level.spec, level.name) for level in TINY.levels[:3]]
    tasks = [
        task
        for level in levels
        for task in unit_tasks(tic_tac_toe_v0.env, ENV, (rated, level), 5, range(6), 1)
    ]
    tasks = [replace(task, index=i) for i, task in enumerate(tasks)]  # 18 games
    alone = [run_game(task) for task in tasks]
    seen: list[Any] = []
    envs: list[Any] = []  # (held: an id is not reused)
    start = lockstep.start_game

    def spy(task: Any, build: Any, env: Any) -> Any:
        env, players = start(task, build, env)
        seen.extend(players.values())
        envs.append(env)
        return env, players

    monkeypatch.setattr(lockstep, "start_game", spy)
    together = list(lockstep_records(tasks, games=4))
    assert same_games(together) == same_games(alone)
    seats = [entrant.name for task in tasks for entrant in task.seats]  # games start in order
    rated_agents = {id(agent) for agent, seat in zip(seen, seats, strict=True) if seat == "rated"}
    assert len(rated_agents) <= 4 and len({id(env) for env in envs}) <= 4  # not one per game


class Occupied:
    """Plays square 4 whether or not it is free: its second move there is illegal."""

    def act(self, env: Any) -> int:
        return 4


def test_an_illegal_move_ends_the_game_as_it_does_game_by_game() -> None:
    seats = (make_entrant(Occupied, "occupied"), make_entrant("mcts:iterations=4", "mcts"))
    tasks = unit_tasks(tic_tac_toe_v0.env, ENV, seats, 1, range(4), 1)
    alone = [run_game(task) for task in tasks]
    assert {record["length"] for record in alone} <= {2, 3, 4}  # the env ended them
    assert same_games(list(lockstep_records(tasks, games=4))) == same_games(alone)


@pytest.fixture
def lockstep_games(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The indices of the games ``executors`` plays in lockstep."""
    from mcts_agents.arena import executors

    played: list[int] = []
    records = executors.lockstep_records

    def spy(tasks: Any, **options: Any) -> Any:
        played.extend(task.index for task in tasks)
        return records(tasks, **options)

    monkeypatch.setattr(executors, "lockstep_records", spy)
    return played


@pytest.mark.parametrize("temperature", [0, 1])
def test_a_match_of_agents_that_act_in_batches_plays_in_lockstep(
    net: str, temperature: int, lockstep_games: list[int], tmp_path: Path
) -> None:
    from mcts_agents.arena import play_match

    agents = [f"policy:model={net},temperature={temperature}", "mcts:iterations=20"]
    alone = play_match(ENV, agents, games=10, seed=2, lockstep=False)
    assert lockstep_games == []
    out = tmp_path / "match.jsonl"
    together = play_match(ENV, agents, games=10, seed=2, out=out)  # lockstep="auto"
    assert sorted(lockstep_games) == list(range(10))
    assert same_games(together.records) == same_games(alone.records)
    untimed = [
        [replace(row, mean_move_time=0.0) for row in run.standings()] for run in (together, alone)
    ]
    assert untimed[0] == untimed[1]  # (the times are each round's, shared among its moves)
    lines = [json.loads(line) for line in out.open()][1:]
    assert [line["index"] for line in lines] == list(range(10))  # as game by game writes them
    assert same_games(lines) == same_games(alone.records)


def test_a_tournament_plays_in_lockstep_the_pairs_that_act_in_batches(
    net: str, lockstep_games: list[int]
) -> None:
    from mcts_agents.agents.agent import RandomAgent
    from mcts_agents.arena import tournament

    agents = {
        "policy": f"policy:model={net}",
        "mcts": "mcts:iterations=16",
        "timed": "mcts:time=0.001",  # the clock decides its moves: game by game
        "factory": RandomAgent,  # not known before it is called: game by game
    }
    deterministic = {name: agents[name] for name in ("policy", "mcts", "factory")}
    alone = tournament(ENV, deterministic, 4, seed=1, lockstep=False)
    assert lockstep_games == []
    together = tournament(ENV, deterministic, 4, seed=1)
    pairs = {
        tuple(sorted(record["seats"])): record["index"] in lockstep_games
        for record in together.records
    }
    assert pairs == {("mcts", "policy"): True, ("factory", "policy"): False,
                     ("factory", "mcts"): False}  # fmt: skip
    assert same_games(together.records) == same_games(alone.records)
    lockstep_games.clear()
    mixed = tournament(ENV, agents, 2, seed=1)
    assert {tuple(sorted(r["seats"])) for r in mixed.records if r["index"] in lockstep_games} == {
        ("mcts", "policy")
    }


def test_lockstep_true_plays_factories_and_refuses_instances(lockstep_games: list[int]) -> None:
    from mcts_agents.agents.agent import RandomAgent
    from mcts_agents.arena import play_match

    alone = play_match(ENV, [RandomAgent, "mcts:iterations=8"], games=4, seed=3, lockstep=False)
    together = play_match(ENV, [RandomAgent, "mcts:iterations=8"], games=4, seed=3, lockstep=True)
    assert sorted(lockstep_games) == [0, 1, 2, 3]
    assert same_games(together.records) == same_games(alone.records)
    with pytest.raises(InvalidOptionError, match=r"lockstep=True: agent 'one' is one object"):
        play_match(ENV, {"one": RandomAgent(), "two": "random"}, games=2, lockstep=True)
    with pytest.raises(OptionTypeError, match=r"lockstep must be True, False or 'auto', got 1"):
        play_match(ENV, ["random", "random"], games=2, lockstep=1)


class Sleepy:
    """Random legal moves, each after 0.2 s."""

    def act(self, env: Any) -> int:
        time.sleep(0.2)
        return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


def test_each_agents_moves_are_given_the_time_of_its_own_batch() -> None:
    from mcts_agents.arena import play_match

    match = play_match(ENV, [Sleepy, "random"], games=2, seed=0, lockstep=True)
    times: dict[str, list[float]] = {"sleepy": [], "random": []}
    for record in match.records:
        for mover, seconds in zip(record["movers"], record["times"], strict=True):
            times["random" if record["seats"][mover] == "random" else "sleepy"].append(seconds)
    assert min(times["sleepy"]) >= 0.2  # its own waits, not shared with the other agent's moves
    assert max(times["random"]) < 0.1  # (generous: a random move takes microseconds)


class Interrupting:
    """The first legal move, until its third move: Ctrl-C."""

    def __init__(self) -> None:
        self.moves = 0

    def act(self, env: Any) -> int:
        self.moves += 1
        if self.moves == 3:
            raise KeyboardInterrupt
        return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


def test_ctrl_c_keeps_the_finished_games_that_wait_for_an_earlier_one(tmp_path: Path) -> None:
    from mcts_agents.arena.executors import game_records
    from mcts_agents.arena.lockstep import Builders

    level = make_entrant("random")
    first = GameTask(0, 11, tic_tac_toe_v0.env, ENV, (make_entrant(Interrupting, "i"), level))
    second = GameTask(1, 12, tic_tac_toe_v0.env, ENV, (make_entrant(Occupied, "o"), level))
    found = []
    with pytest.raises(KeyboardInterrupt):
        for record in game_records([first, second], 1, "process", None, Builders()):
            found.append(record)
    assert [record["index"] for record in found] == [1]  # game 1 ended before game 0's Ctrl-C
    assert same_games(found) == same_games([run_game(second)])
