"""Agent and env specs: parsing, values, building, errors that name the spec, pickling, humans."""

from __future__ import annotations

import dataclasses
import io
import pickle
import re

import pettingzoo
import pytest

from mcts_agents import HumanAgent, MCTSAgent, RandomAgent, SearchConfig
from mcts_agents.agents.specs import (
    AgentSpec,
    EnvSpec,
    listing,
    make_agent,
    make_env,
    parse_agent_spec,
    parse_env_spec,
    parse_value,
)
from mcts_agents.envs import tic_tac_toe_v0
from mcts_agents.errors import SpecError
from tests.mcts_agents.env_factories import sized_connect_four


# ------------------------------------------------------------------------------ values
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", 3),
        ("-2", -2),
        ("0.5", 0.5),
        ("1e3", 1000.0),
        ("on", True),
        ("Yes", True),
        ("true", True),
        ("off", False),
        ("no", False),
        ("FALSE", False),
        ("none", None),
        ("ucb1_tuned", "ucb1_tuned"),
    ],
)
def test_values_are_parsed(text: str, value: object) -> None:
    parsed = parse_value(text)
    assert parsed == value and type(parsed) is type(value)


# ------------------------------------------------------------------------------ agents
def test_mcts_spec_options_and_time_alias() -> None:
    spec = parse_agent_spec("mcts:time=0.5,c=1.4,solver=off")
    assert spec.kind == "mcts"
    assert spec.options == {"time_limit": 0.5, "c": 1.4, "solver": False}
    assert spec.name == "mcts:time=0.5,c=1.4,solver=off"
    agent = make_agent(spec, seed=7)
    assert isinstance(agent, MCTSAgent)
    assert agent.budget.time_limit == 0.5 and agent.budget.iterations is None
    assert agent.config.c == 1.4 and agent.config.solver is False
    assert agent.seed == 7


def test_every_mcts_agent_option_reaches_the_agent() -> None:
    agent = make_agent("mcts:iterations=1000,selection=ucb1_tuned,fpu=none,final_move=value")
    assert agent.budget.iterations == 1000
    assert agent.config.selection == "ucb1_tuned"
    assert agent.config.fpu is None and agent.config.final_move == "value"


def test_kernel_dot_options_become_the_kernels_options() -> None:
    spec = parse_agent_spec("mcts:iterations=50,kernel.defend=1,kernel.c=0.2,c=2")
    assert spec.options == {"iterations": 50, "c": 2, "kernel_options": {"defend": 1, "c": 0.2}}
    agent = make_agent(spec)
    assert agent.config.kernel_options == (("c", 0.2), ("defend", 1)) and agent.config.c == 2
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_random_and_human_specs() -> None:
    assert parse_agent_spec("random") == AgentSpec("random", {}, "random", "random")
    agent = make_agent("random:seed=3", seed=99)
    assert isinstance(agent, RandomAgent) and agent.seed == 3  # the spec's own seed wins
    assert make_agent("random", seed=5).seed == 5
    human = make_agent("human:name=ann")
    assert isinstance(human, HumanAgent) and human.name == "ann"


def test_name_option_sets_the_display_name() -> None:
    spec = parse_agent_spec("mcts:iterations=50,name=weak")
    assert spec.name == "weak" and "name" not in spec.options


def test_specs_pickle_and_build_fresh_agents() -> None:
    spec = parse_agent_spec("mcts:iterations=10")
    again = pickle.loads(pickle.dumps(spec))
    assert again == spec
    assert again.build() is not again.build()
    env_spec = parse_env_spec("connect_four:width=8")
    assert pickle.loads(pickle.dumps(env_spec)) == env_spec


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("alphazero", "unknown kind 'alphazero'.*'mcts'"),
        ("mcts:iterations", "'iterations' is not of the form key=value"),
        ("mcts:=3", "is not of the form key=value"),
        ("mcts:iterations=10,,c=1", "is not of the form key=value"),
        ("mcts:iterations=10,bogus=1", "'mcts:iterations=10,bogus=1'.*bogus"),
        ("mcts:iterations=-5", "'mcts:iterations=-5'.*iterations"),
        ("mcts:iterations=10,c=abc", "'mcts:iterations=10,c=abc'.*c must be a finite number"),
        ("mcts:iterations=10,selection=foo", "selection"),
        ("mcts", "budget"),
        ("mcts:time=1,time_limit=2", "given twice"),
        ("random:depth=3", "'random:depth=3'.*depth.*seed"),
        ("random:seed=abc", "seed must be an int"),
        ("human:level=3", "'human:level=3'.*level"),
        ("az", "'az': model= is needed"),
        ("az:model=/no/such/run", "'az:model=/no/such/run': model '/no/such/run' does not exist"),
        ("policy:model=/no/such/run", "does not exist; expected a training run's folder"),
        ("az:model=/no/such/run,workers=2", "unknown option 'workers'"),
        ("", "no kind"),
        ("mcts:iterations=10,kernel.a.b=1", "unknown option 'kernel.a.b'"),
        ("mcts:iterations=10,go.defend=1", "unknown option 'go.defend'"),
        ("mcts:iterations=10,kernel.=1", "'kernel.=1' is not of the form key=value"),
        ("az:model=/no/run,kernel.defend=1", "unknown option 'kernel.defend'"),
        ("mcts:iterations=10,kernel_options=1", "kernel_options must be a mapping"),
        ("mcts:iterations=10,kernel.x=1,kernel_options=1", "kernel.NAME=VALUE, not with"),
    ],
)
def test_bad_agent_specs_name_the_spec(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_agent_spec(text)
    assert issubclass(SpecError, ValueError)


@pytest.mark.parametrize(
    ("text", "key", "suggested"),
    [
        ("mcts:iteration=5", "iteration", "iterations"),
        ("mcts:iters=100", "iters", "iterations"),
        ("mcts:time_limt=1", "time_limt", "time_limit"),
        ("mcts:iterations=10,worker=2", "worker", "workers"),
        ("random:sed=3", "sed", "seed"),
        ("az:model=/no/run,simulation=30", "simulation", "simulations"),
        ("policy:model=/no/run,temprature=1", "temprature", "temperature"),
    ],
)
def test_a_typo_in_an_option_is_named_with_the_close_one(
    text: str, key: str, suggested: str
) -> None:
    """A misspelt budget key was reported as "a budget is needed"; now the spec names the
    unknown option, suggests the close valid one and lists every valid option."""
    with pytest.raises(SpecError) as caught:
        parse_agent_spec(text)
    message = str(caught.value)
    assert "a budget is needed" not in message
    assert f"{text!r}" in message and f"unknown option {key!r}" in message
    assert f"did you mean {suggested!r}?" in message
    # The same check guards an AgentSpec built by hand (no parsing).
    kind, _, _ = text.partition(":")
    with pytest.raises(SpecError, match=f"unknown option {key!r}"):
        make_agent(AgentSpec(kind, {key: 5}, text=text))


def test_the_list_of_valid_options_is_complete() -> None:
    with pytest.raises(SpecError) as caught:
        parse_agent_spec("mcts:iteration=5")
    listed = str(caught.value).split("options of 'mcts': ", 1)[1]
    every = ["iterations", "time_limit", "max_nodes", "seed", "workers", "time", "name"]
    every += [f.name for f in dataclasses.fields(SearchConfig)]
    assert all(re.search(rf"(^|, ){name}\b", listed) for name in every), listed
    with pytest.raises(SpecError, match=r"unknown options 'a', 'b'"):
        parse_agent_spec("mcts:iterations=5,a=1,b=2")


# -------------------------------------------------------------------------------- envs
def test_env_specs_merge_options_over_the_variant() -> None:
    env = make_env("connect_four:width=8,height=7")
    env.reset(seed=0)
    assert env.action_space("player_0").n == 8
    assert env.unwrapped.game.height == 7
    gomoku = parse_env_spec("gomoku")
    assert gomoku.module == "mnk_v0" and gomoku.kwargs == {"preset": "gomoku"}
    deluxe = parse_env_spec("tic_tac_toe_deluxe")
    assert deluxe.kwargs == {"preset": "deluxe"}


def test_env_spec_is_a_callable_env_factory() -> None:
    spec = parse_env_spec("tic_tac_toe")
    assert isinstance(spec, EnvSpec)
    first, second = spec(), spec()
    assert first is not second
    first.reset(seed=0)
    first.step(4)
    second.reset(seed=0)
    assert second.unwrapped.legal_actions() == list(range(9))  # fresh, not shared
    assert spec(render_mode="ansi").unwrapped.render_mode == "ansi"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("chess", "unknown env 'chess'.*'connect_four'.*'tic_tac_toe_deluxe'"),
        ("connect_four:depth=3", "'connect_four:depth=3'.*depth.*width=7"),
        ("connect_four:width=0", "'connect_four:width=0'.*width"),
        ("connect_four:width", "not of the form key=value"),
        ("connect_four:kernel.width=7", "'kernel.width=7' is not of the form key=value"),
    ],
)
def test_bad_env_specs_name_the_spec(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        make_env(text)


FACTORIES = "tests.mcts_agents.env_factories"


def test_pettingzoo_registry_ids_are_env_specs() -> None:
    spec = parse_env_spec("mcts_agents/connect_four-v0:width=8")
    assert spec.factory == "mcts_agents.envs.connect_four_v0:env" and spec.kwargs == {"width": 8}
    env = spec()
    env.reset(seed=0)
    assert env.action_space("player_0").n == 8
    again = pickle.loads(pickle.dumps(spec))
    assert again == spec and again() is not env
    assert parse_env_spec("mcts_agents/gomoku-v0").kwargs == {"preset": "gomoku"}
    # PettingZoo's own ids, with or without the version, "_v3" as well as "-v3".
    for text in ("classic/connect_four-v3", "classic/connect_four_v3", "classic/connect_four"):
        spec = parse_env_spec(text)
        assert spec.factory == "pettingzoo.classic.connect_four.connect_four:env"
        assert spec().metadata["name"] == "connect_four_v3"


def test_any_id_in_the_registry_and_its_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = pettingzoo.aec_registry
    by_path = pettingzoo.EnvSpec(
        id="tests/small-v1", entry_point=f"{FACTORIES}:sized_connect_four", kwargs={"width": 5}
    )
    by_function = pettingzoo.EnvSpec(id="tests/small-v2", entry_point=sized_connect_four)
    by_lambda = pettingzoo.EnvSpec(id="tests/small-v3", entry_point=lambda: None)
    for entry in (by_path, by_function, by_lambda):
        monkeypatch.setitem(registry, entry.id, entry)
    spec = parse_env_spec("tests/small-v1:height=4")
    assert spec.kwargs == {"width": 5, "height": 4}
    assert spec().unwrapped.game.width == 5
    # A function is kept as its import path, so that worker processes can import it.
    assert parse_env_spec("tests/small-v2").factory == f"{FACTORIES}:sized_connect_four"
    with pytest.raises(SpecError, match=r"'tests/small-v3'.*cannot be imported by name"):
        parse_env_spec("tests/small-v3")


def test_pettingzoo_classic_module_names() -> None:
    spec = parse_env_spec("pettingzoo.classic.tictactoe_v3")
    assert spec.factory == "pettingzoo.classic.tictactoe_v3:env" and spec.module == ""
    assert spec().metadata["name"] == "tictactoe_v3"
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_module_factory_envs_with_options_keep_the_import_path() -> None:
    spec = parse_env_spec(f"{FACTORIES}:small_connect_four")
    assert spec.factory == f"{FACTORIES}:small_connect_four" and spec.kwargs == {}
    first, second = spec(), spec()
    assert first is not second and first.unwrapped.game.width == 5
    sized = parse_env_spec(f"{FACTORIES}:sized_connect_four:width=6,height=5")
    assert sized.kwargs == {"width": 6, "height": 5}
    assert all(isinstance(getattr(sized, f.name), (str, dict)) for f in dataclasses.fields(sized))
    assert pickle.loads(pickle.dumps(sized)) == sized
    assert sized(render_mode="ansi").unwrapped.render_mode == "ansi"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("chess", "unknown env 'chess'.*registry id.*module:factory.*mean 'classic/chess-v6'"),
        ("conect_four", "did you mean 'connect_four'"),
        ("classic/connect_four-v99", "unknown env 'classic/connect_four-v99'"),
        ("classic/connect_four-v3:depth=2", "'classic/connect_four-v3:depth=2'.*depth"),
        ("no_such_module_xyz.envs", "not a registered env id, and importing it as a module fail"),
        ("no_such_module_xyz:make", "cannot import 'no_such_module_xyz:make'"),
        (f"{FACTORIES}:missing", f"module '{FACTORIES}' has no 'missing'"),
        ("os.path", "module 'os.path' has no 'env'"),
        (f"{FACTORIES}:not_an_env", "made a int, not a PettingZoo AEC env"),
        (f"{FACTORIES}:parallel_rps", "not a PettingZoo AEC env.*parallel_to_aec"),
        (f"{FACTORIES}:broken", "RuntimeError: the factory broke"),
        (f"{FACTORIES}:small_connect_four:width=8", "unexpected keyword argument 'width'"),
        (f"{FACTORIES}:small_connect_four:width", "'width' is not of the form key=value"),
    ],
)
def test_bad_envs_name_the_text_and_what_was_tried(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as caught:
        parse_env_spec(text)
    assert repr(text) in str(caught.value)


def test_listing_reads_the_options_from_the_code() -> None:
    text = listing()
    assert "connect_four" in text and "width=7" in text and "height=6" in text
    assert "gomoku" in text and "preset='gomoku'" in text
    assert "iterations=None" in text and "c=1.4" in text and "solver=True" in text
    assert "random" in text and "human" in text
    assert "az       model=PATH, device=None, threads=1, simulations=200" in text
    assert "policy   model=PATH, device=None, threads=1, temperature=0.0" in text


# ------------------------------------------------------------------------------- human
def test_human_agent_re_asks_after_bad_input_and_shows_the_board() -> None:
    env = tic_tac_toe_v0.env(render_mode="ansi")
    env.reset(seed=0)
    env.step(4)
    out = io.StringIO()
    human = make_agent("human", input=io.StringIO("x\n4\n\n0\n"), output=out)
    assert human.act(env) == 0
    text = out.getvalue()
    assert env.render() in text
    assert "legal moves: 0 1 2 3 5 6 7 8" in text
    assert "'x' is not an integer" in text
    assert "4 is not a legal move" in text
    assert "'' is not an integer" in text


def test_human_agent_raises_eof_when_input_ends() -> None:
    env = tic_tac_toe_v0.env()
    env.reset(seed=0)
    human = HumanAgent(input=io.StringIO("9\n"), output=io.StringIO())
    with pytest.raises(EOFError):
        human.act(env)
