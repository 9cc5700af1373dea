"""``python -m mcts_agents``: the command line."""

from mcts_agents.cli.launch import run

raise SystemExit(run())
